// Bulk ratings write a batch set-based: the same items sent in one batch and one per request leave the
// same results, ratings and change records. Two users start from the same ratings, favourite and status;
// one sends the batch, the other each item alone. The batch names targets several times (set then set,
// set then remove, remove then set, four writes of one movie), removes ratings that are not there, sets
// ratings to the value they have (with and without another rated_at) and to new ones, on titles with a
// favourite or a status (whose records carry the title-level rating), with invalid and deferred items.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { changesOf, type LoggedChange } from './helpers/change-log.ts';
import { FIRST_SHOW, member, ok, platform, seedCatalog, SPIRITED_AWAY, type Member } from './helpers/seed.ts';
import { bulk } from './helpers/sync-client.ts';
import { sql } from './helpers/title-fixtures.ts';

const TOY_STORY = 862;
const CRIME = 7000;
const SECOND_SHOW = FIRST_SHOW + 1;
const SCOPES = ['ratings:write', 'ratings:read'];

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
  await seedCatalog(app, { shows: 2 });
});
afterAll(() => app?.stop());

const at = (day: number) => new Date(Date.UTC(2025, 0, day, 12)).toISOString();

/** What both users hold before: ratings of every scope, a favourite movie, a show with a status. */
const BEFORE = [
  { movie_db_id: SPIRITED_AWAY, rating: 5, rated_at: at(1) },
  { movie_db_id: TOY_STORY, rating: 4, rated_at: at(2) },
  { type: 'show', movie_db_id: FIRST_SHOW, rating: 6, rated_at: at(3) },
  { movie_db_id: FIRST_SHOW, season: 1, rating: 7, rated_at: at(4) },
  { movie_db_id: FIRST_SHOW, season: 1, episode: 1, rating: 8, rated_at: at(5) },
];

const BATCH: Record<string, unknown>[] = [
  { movie_db_id: SPIRITED_AWAY, rating: 7, rated_at: at(10) }, // updated, the favourite re-recorded
  { movie_db_id: SPIRITED_AWAY, rating: 8 }, // the same target again: updated, rated now
  { type: 'show', movie_db_id: FIRST_SHOW, rating: 6, rated_at: at(11) }, // unchanged (another rated_at)
  { movie_db_id: FIRST_SHOW, season: 1, rating: 9, rated_at: at(12) }, // updated
  { movie_db_id: FIRST_SHOW, season: 1, episode: 2, remove: true }, // absent
  { movie_db_id: FIRST_SHOW, season: 1, episode: 1, remove: true }, // removed
  { movie_db_id: FIRST_SHOW, season: 1, episode: 1, rating: 3, rated_at: at(13) }, // remove then set: inserted
  { movie_db_id: CRIME, rating: 2, rated_at: at(14) }, // inserted
  { movie_db_id: CRIME, remove: true }, // set then remove: removed
  { movie_db_id: CRIME, remove: true }, // absent
  { type: 'show', movie_db_id: SECOND_SHOW, rating: 7, rated_at: at(15) }, // inserted
  { type: 'show', movie_db_id: SECOND_SHOW, rating: 8, rated_at: at(16) }, // set 7 then 8: updated
  { movie_db_id: TOY_STORY, rating: 4, rated_at: at(17) }, // unchanged
  { movie_db_id: TOY_STORY, rating: 4 }, // unchanged
  { movie_db_id: TOY_STORY, rating: 11 }, // invalid
  { movie_db_id: 999_999_999, rating: 5 }, // deferred: no such title
  { movie_db_id: FIRST_SHOW, season: 88, rating: 5 }, // deferred: no such season
  { movie_db_id: FIRST_SHOW, episode: 3, rating: 5, rated_at: at(18) }, // absolute number: inserted
  { movie_db_id: SPIRITED_AWAY, remove: true }, // a third write of the favourite movie: removed
  { movie_db_id: SPIRITED_AWAY, rating: 6, rated_at: at(19) }, // and a fourth: inserted
  { type: 'show', movie_db_id: FIRST_SHOW, rating: 2 }, // the show with a status: updated, rated now
  { movie_db_id: CRIME, rating: 1, rated_at: at(20) }, // after the set, remove and absent remove: inserted
  { movie_db_id: CRIME, rating: 1, rated_at: at(21) }, // unchanged
].map((item, i) => ({ client_item_id: `i${i}`, ...item }));

async function prepare(name: string): Promise<Member> {
  const m = await member(app, name, SCOPES);
  const before = await ok(bulk(app, m.token, 'ratings', BEFORE));
  expect(before.inserted, JSON.stringify(before.results)).toBe(BEFORE.length);
  await ok(platform(app, m.token, 'POST', '/favourites', { type: 'movie', movieDbId: SPIRITED_AWAY }));
  await ok(platform(app, m.token, 'PUT', `/show-status/show/${FIRST_SHOW}`, { status: 'watching' }));
  return m;
}

/**
 * One user's results, ratings and change records made comparable with another's: ids as the order in
 * which they first appear, times of this test's writes (rated, favourited or changed now) as 'now'.
 */
function normalizer(since: Date) {
  const ids = new Map<string, number>();
  const id = (v: unknown) => {
    if (v === null || v === undefined) return v;
    const key = String(v);
    if (!ids.has(key)) ids.set(key, ids.size + 1);
    return `#${ids.get(key)}`;
  };
  const time = (v: unknown) => (typeof v === 'string' && new Date(v) >= since ? 'now' : v);
  const data = (resource: string, d: Record<string, unknown> | null) => {
    if (d === null) return null;
    // The title state's own id (favourites, statuses) is the same item in both users' feeds.
    const own = resource === 'ratings' ? id(d.id) : 'state';
    return { ...d, id: own, ratedAt: time(d.ratedAt), updatedAt: time(d.updatedAt), favouritedAt: time(d.favouritedAt) };
  };
  return {
    result: (r: Record<string, unknown>, index: number) => ({ ...r, index, id: id(r.id) }),
    row: (r: Record<string, unknown>) => ({ ...r, id: id(r.id), rated_at: time(new Date(r.rated_at as string).toISOString()) }),
    change: (c: LoggedChange) => ({ ...c, resource_id: c.resource === 'ratings' ? id(c.resource_id) : c.resource_id, data: data(c.resource, c.data) }),
  };
}

const ratingRows = (userId: string) =>
  sql<Record<string, unknown>>(
    app,
    `select r.id::text as id, t.type, t.movie_db_id, r.scope, r.season_number, r.episode_number, r.rating, r.rated_at
       from user_rating r join title t on t.id = r.title_id where r.user_id = $1
      order by t.type, t.movie_db_id, r.scope, r.season_number nulls first, r.episode_number nulls first`,
    [userId],
  );

describe('POST /sync/ratings, a batch written set-based', () => {
  it('answers, writes and records a batch as the same items sent one per request', async () => {
    const since = new Date();
    const batch = await prepare('bulk_batch');
    const single = await prepare('bulk_single');
    const logged = { batch: (await changesOf(app, batch.userId)).length, single: (await changesOf(app, single.userId)).length };

    const batchBody = await ok(bulk(app, batch.token, 'ratings', BATCH));
    const singleResults: Record<string, unknown>[] = [];
    for (const item of BATCH) singleResults.push(...((await ok(bulk(app, single.token, 'ratings', [item]))).results as Record<string, unknown>[]));

    const batchResults = batchBody.results as Record<string, unknown>[];
    expect(batchResults.map((r) => [r.status, r.reason])).toEqual([
      ['updated', null],
      ['updated', null],
      ['skipped', 'unchanged'],
      ['updated', null],
      ['skipped', 'absent'],
      ['removed', null],
      ['inserted', null],
      ['inserted', null],
      ['removed', null],
      ['skipped', 'absent'],
      ['inserted', null],
      ['updated', null],
      ['skipped', 'unchanged'],
      ['skipped', 'unchanged'],
      ['invalid', null],
      ['deferred', 'unmatched'],
      ['deferred', 'unmatched'],
      ['inserted', null],
      ['removed', null],
      ['inserted', null],
      ['updated', null],
      ['inserted', null],
      ['skipped', 'unchanged'],
    ]);
    expect(batchBody).toMatchObject({ inserted: 6, updated: 5, removed: 3, skipped: 6, invalid: 1, deferred: 2 });
    // The rating written, removed and written again keeps ids apart: set then remove answer one id.
    expect(batchResults[8]!.id).toBe(batchResults[7]!.id);
    expect(batchResults[19]!.id).not.toBe(batchResults[18]!.id);

    const b = normalizer(since);
    const s = normalizer(since);
    expect(batchResults.map((r, i) => b.result(r, i))).toEqual(singleResults.map((r, i) => s.result(r, i)));
    expect((await ratingRows(batch.userId)).map(b.row)).toEqual((await ratingRows(single.userId)).map(s.row));
    const batchChanges = (await changesOf(app, batch.userId)).slice(logged.batch);
    const singleChanges = (await changesOf(app, single.userId)).slice(logged.single);
    expect(batchChanges.map(b.change)).toEqual(singleChanges.map(s.change));
    // Each changed rating once, the title-level ones with their title's favourite or status item.
    expect(batchChanges.map((c) => `${c.resource}:${c.op}`)).toEqual([
      'ratings:upsert', 'favourites:upsert',
      'ratings:upsert', 'favourites:upsert',
      'ratings:upsert',
      'ratings:delete',
      'ratings:upsert',
      'ratings:upsert',
      'ratings:delete',
      'ratings:upsert',
      'ratings:upsert',
      'ratings:upsert',
      'ratings:delete', 'favourites:upsert',
      'ratings:upsert', 'favourites:upsert',
      'ratings:upsert', 'show_status:upsert',
      'ratings:upsert',
    ]);
    // The favourite's records carry the title-level rating as it was after each write.
    expect(batchChanges.filter((c) => c.resource === 'favourites').map((c) => c.data!.rating)).toEqual([7, 8, null, 6]);
  });
});
