// The shared write paths of user data (core): logging watches with deduplication, ratings, the change
// log they record in the same transaction, title resolution, and cursors bound to their parameters.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordChange } from '../src/core/changes/record.ts';
import { resolveEpisodes, resolveTitles } from '../src/core/catalog/resolve.ts';
import { query } from '../src/core/db/sql.ts';
import { transaction } from '../src/core/db/transaction.ts';
import { logWatches, type WatchInput } from '../src/core/library/history-write.ts';
import { removeRating, setRating } from '../src/core/library/ratings-write.ts';
import { decodeCursor, encodeCursor } from '../src/core/paging/cursor.ts';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { makeUser } from './helpers/oauth.ts';
import { FIRST_SHOW, seedCatalog, SPIRITED_AWAY } from './helpers/seed.ts';

let app: TestApp;
let userId: string;
const em = () => app.db.orm.em.fork();

beforeAll(async () => {
  app = await startTestApp();
  await seedCatalog(app, { shows: 2 });
  userId = (await makeUser(app, 'primitives')).id;
});
afterAll(() => app?.stop());

async function changes() {
  return query<{ resource: string; op: string; data: Record<string, unknown> | null }>(em(), { text: `select resource, op, data from change_log where user_id = $1 order by xid, id`, params: [userId] });
}

describe('resolveTitles', () => {
  it('resolves by movie_db_id, by title and year, and answers null where nothing matches, in order', async () => {
    const [a, b, c, d] = await resolveTitles(em(), [
      { type: 'movie', movieDbId: SPIRITED_AWAY },
      { type: 'movie', title: 'spirited away', year: 2001 },
      { type: 'show', movieDbId: SPIRITED_AWAY },
      { type: 'movie', movieDbId: 999_999_999 },
    ]);
    expect(a).toMatchObject({ type: 'movie', movieDbId: SPIRITED_AWAY, name: 'Spirited Away' });
    expect(b?.id).toBe(a?.id);
    expect(c).toBeNull();
    expect(d).toBeNull();
  });

  it('resolves episodes by season and number and by absolute number', async () => {
    const [show] = await resolveTitles(em(), [{ type: 'show', movieDbId: FIRST_SHOW }]);
    const [byNumber, byAbsolute, missing] = await resolveEpisodes(em(), [
      { titleId: show!.id, season: 1, episode: 2 },
      { titleId: show!.id, absolute: 2 },
      { titleId: show!.id, season: 99, episode: 1 },
    ]);
    expect(byNumber).toMatchObject({ season: 1, episode: 2 });
    expect(byAbsolute?.id).toBe(byNumber?.id);
    expect(missing).toBeNull();
  });
});

describe('logWatches', () => {
  it('inserts, skips the same watch within the window (stored or in the same call), and records each insert', async () => {
    const [movie] = await resolveTitles(em(), [{ type: 'movie', movieDbId: SPIRITED_AWAY }]);
    const at = new Date('2026-01-01T20:00:00Z');
    const watch = (over: Partial<WatchInput>): WatchInput => ({ titleId: movie!.id, episodeId: null, season: null, episode: null, watchedAt: at, runtimeMinutes: 125, source: 'api', clientId: null, ...over });
    const first = await transaction(em(), (tx) => logWatches(tx, userId, [watch({}), watch({ watchedAt: new Date(at.getTime() + 5 * 60_000) }), watch({ watchedAt: new Date('2026-02-01T20:00:00Z') })]));
    expect(first.map((r) => r.status)).toEqual(['inserted', 'skipped', 'inserted']);
    expect(first[1]!.id).toBe(first[0]!.id);
    const again = await transaction(em(), (tx) => logWatches(tx, userId, [watch({ watchedAt: new Date(at.getTime() - 30 * 60_000) })]));
    expect(again).toEqual([{ status: 'skipped', id: first[0]!.id }]);
    const log = (await changes()).filter((c) => c.resource === 'history');
    expect(log).toHaveLength(2);
    // The record is the GET /me/history item.
    expect(log[0]).toEqual({
      resource: 'history',
      op: 'upsert',
      data: {
        id: Number(first[0]!.id),
        movieDbId: SPIRITED_AWAY,
        type: 'movie',
        isAnime: false,
        name: 'Spirited Away',
        year: 2001,
        posterPath: expect.any(String),
        backdropPath: expect.any(String),
        season: null,
        episode: null,
        episodeTitle: null,
        stillPath: null,
        runtimeMinutes: 125,
        watchedAt: at.toISOString(),
      },
    });
  });

  it('never doubles a watch under concurrent calls', async () => {
    const [show] = await resolveTitles(em(), [{ type: 'show', movieDbId: FIRST_SHOW }]);
    const [ep] = await resolveEpisodes(em(), [{ titleId: show!.id, season: 1, episode: 1 }]);
    const w: WatchInput = { titleId: show!.id, episodeId: ep!.id, season: 1, episode: 1, watchedAt: new Date('2026-03-01T10:00:00Z'), runtimeMinutes: null, source: 'sync', clientId: null };
    const results = await Promise.all(Array.from({ length: 8 }, () => transaction(em(), (tx) => logWatches(tx, userId, [w]))));
    expect(results.flat().filter((r) => r.status === 'inserted')).toHaveLength(1);
    const [row] = await query<{ n: number }>(em(), { text: `select count(*)::int as n from watch_history where user_id = $1 and episode_id = $2`, params: [userId, ep!.id] });
    expect(row?.n).toBe(1);
  });

  it('rolls the change back with the write', async () => {
    const before = (await changes()).length;
    await expect(
      transaction(em(), async (tx) => {
        await recordChange(tx, userId, { resource: 'history', resourceId: 1, op: 'delete', data: null });
        throw new Error('abort');
      }),
    ).rejects.toThrow('abort');
    expect((await changes()).length).toBe(before);
  });
});

describe('setRating', () => {
  it('inserts, updates, skips an unchanged rating, removes, and records each change', async () => {
    const [movie] = await resolveTitles(em(), [{ type: 'movie', movieDbId: SPIRITED_AWAY }]);
    const target = { titleId: movie!.id, scope: 'title' as const, season: null, episode: null };
    const a = await transaction(em(), (tx) => setRating(tx, userId, target, 8));
    const b = await transaction(em(), (tx) => setRating(tx, userId, target, 9));
    const c = await transaction(em(), (tx) => setRating(tx, userId, target, 9));
    expect([a.status, b.status, c.status]).toEqual(['inserted', 'updated', 'skipped']);
    expect(new Set([a.id, b.id, c.id]).size).toBe(1);
    expect(await transaction(em(), (tx) => removeRating(tx, userId, target))).toBe(a.id);
    expect(await transaction(em(), (tx) => removeRating(tx, userId, target))).toBeNull();
    const log = (await changes()).filter((x) => x.resource === 'ratings').map((x) => [x.op, x.data?.rating ?? null]);
    expect(log).toEqual([['upsert', 8], ['upsert', 9], ['delete', null]]);
  });
});

describe('cursors', () => {
  const isPair = (p: unknown): p is [string, number] => Array.isArray(p) && p.length === 2;
  it('round-trip with the same parameters and refuse others or garbage with invalid_request', () => {
    const c = encodeCursor(['2026-01-01T00:00:00.000Z', 5], { type: 'movie', limit: 50 });
    expect(decodeCursor(c, { limit: 50, type: 'movie' }, isPair)).toEqual(['2026-01-01T00:00:00.000Z', 5]);
    expect(() => decodeCursor(c, { type: 'show', limit: 50 }, isPair)).toThrow(expect.objectContaining({ code: 'invalid_request' }));
    expect(() => decodeCursor('nonsense!', { type: 'movie', limit: 50 }, isPair)).toThrow(expect.objectContaining({ code: 'invalid_request' }));
  });
});
