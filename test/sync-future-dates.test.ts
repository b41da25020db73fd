// Bulk sync refuses dates in the future as POST /watch-history does (one rule, the same clock-skew
// allowance): every dated field of every bulk item (history `watched_at`, ratings `rated_at`; watchlist
// items carry no date). The future item is `invalid` with its reason in `error`, the rest of the batch is
// applied, and nothing of the refused item is stored or in the change feed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { query } from '../src/core/db/sql.ts';
import { FUTURE_SKEW_MS } from '../src/core/wire/dates.ts';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { changesOf } from './helpers/change-log.ts';
import { expectError } from './helpers/envelope.ts';
import type { Answer } from './helpers/http.ts';
import { FIRST_SHOW, member, platform, seedCatalog, SPIRITED_AWAY } from './helpers/seed.ts';
import { bulk } from './helpers/sync-client.ts';

let app: TestApp;
const em = () => app.db.orm.em.fork();
const DAY = 86_400_000;

beforeAll(async () => {
  app = await startTestApp();
  await seedCatalog(app, { shows: 1 });
});
afterAll(() => app?.stop());

/** A date-time this far from now: well past the allowance, or well inside it. */
const fromNow = (ms: number) => new Date(Date.now() + ms).toISOString();
const FUTURE = () => fromNow(DAY);
const WITHIN_SKEW = () => fromNow(FUTURE_SKEW_MS / 5);
const invalid = (index: number, clientItemId: string, field: string) => ({
  client_item_id: clientItemId, index, status: 'invalid', id: null, reason: null, resolved_movie_db_id: null, error: `${field}: must not be in the future`,
});

/** The batch answered 200 with these statuses and counters; its results. */
function outcome(res: Answer, statuses: string[]): Array<Record<string, unknown>> {
  expect(res.status).toBe(200);
  const results = res.body.results as Array<Record<string, unknown>>;
  expect(results.map((r) => r.status)).toEqual(statuses);
  const count = (status: string) => statuses.filter((s) => s === status).length;
  expect(res.body).toMatchObject({ inserted: count('inserted'), updated: 0, removed: 0, skipped: 0, invalid: count('invalid'), deferred: 0, idempotency_replayed: false });
  return results;
}

/** The ids the change log holds for a resource of the user, in the feed's order. */
async function loggedIds(userId: string, resource: string): Promise<string[]> {
  return (await changesOf(app, userId)).filter((c) => c.resource === resource).map((c) => c.resource_id);
}

describe('POST /sync/history: watched_at in the future', () => {
  it('makes that item invalid and applies the rest; nothing of it is stored or in the feed', async () => {
    const m = await member(app, 'future_history', ['history:write']);
    const res = await bulk(app, m.token, 'history', [
      { client_item_id: 'past', movie_db_id: SPIRITED_AWAY, watched_at: '2024-05-01T20:00:00Z' },
      { client_item_id: 'tomorrow', movie_db_id: SPIRITED_AWAY, watched_at: FUTURE() },
      { client_item_id: 'skew', movie_db_id: FIRST_SHOW, season: 1, episode: 1, watched_at: WITHIN_SKEW() },
      { client_item_id: 'far', movie_db_id: FIRST_SHOW, season: 1, episode: 2, watched_at: '2999-12-31T23:59:59Z' },
    ]);
    const results = outcome(res, ['inserted', 'invalid', 'inserted', 'invalid']);
    expect(results[1]).toEqual(invalid(1, 'tomorrow', 'watched_at'));
    expect(results[3]).toEqual(invalid(3, 'far', 'watched_at'));

    const stored = await query<{ id: string; episode_number: number | null }>(em(), {
      text: `select id, episode_number from watch_history where user_id = $1 order by id`,
      params: [m.userId],
    });
    expect(stored.map((r) => [Number(r.id), r.episode_number])).toEqual([[results[0]!.id, null], [results[2]!.id, 1]]);
    expect(await loggedIds(m.userId, 'history')).toEqual([String(results[0]!.id), String(results[2]!.id)]);
  });

  it('is the rule of POST /watch-history: the same date is refused there with the same words', async () => {
    const m = await member(app, 'future_single', ['history:write']);
    const res = await platform(app, m.token, 'POST', '/watch-history', { type: 'movie', movieDbId: SPIRITED_AWAY, watchedAt: FUTURE() });
    expectError(res, 400, 'invalid_request');
    expect(res.body.message).toContain('must not be in the future');
  });
});

describe('POST /sync/ratings: rated_at in the future', () => {
  it('makes that item invalid (an existing rating stays as it was) and applies the rest', async () => {
    const m = await member(app, 'future_ratings', ['ratings:write']);
    const before = await bulk(app, m.token, 'ratings', [{ client_item_id: 'set', movie_db_id: SPIRITED_AWAY, rating: 7, rated_at: '2024-01-01T00:00:00Z' }]);
    expect((before.body.results as Array<Record<string, unknown>>)[0]).toMatchObject({ status: 'inserted' });
    const logBefore = await loggedIds(m.userId, 'ratings');

    const res = await bulk(app, m.token, 'ratings', [
      { client_item_id: 'change', movie_db_id: SPIRITED_AWAY, rating: 9, rated_at: FUTURE() },
      { client_item_id: 'show', type: 'show', movie_db_id: FIRST_SHOW, rating: 6, rated_at: WITHIN_SKEW() },
      { client_item_id: 'episode', movie_db_id: FIRST_SHOW, season: 1, episode: 1, rating: 8 },
      { client_item_id: 'season', movie_db_id: FIRST_SHOW, season: 1, rating: 5, rated_at: '2999-01-01T00:00:00+02:00' },
    ]);
    const results = outcome(res, ['invalid', 'inserted', 'inserted', 'invalid']);
    expect(results[0]).toEqual(invalid(0, 'change', 'rated_at'));
    expect(results[3]).toEqual(invalid(3, 'season', 'rated_at'));

    const rows = await query<{ scope: string; rating: number }>(em(), { text: `select scope, rating from user_rating where user_id = $1 order by scope`, params: [m.userId] });
    expect(rows).toEqual([
      { scope: 'episode', rating: 8 },
      { scope: 'series', rating: 6 },
      { scope: 'title', rating: 7 },
    ]);
    expect(await loggedIds(m.userId, 'ratings')).toEqual([...logBefore, String(results[1]!.id), String(results[2]!.id)]);
  });

  it('a removal carries no date and is unaffected', async () => {
    const m = await member(app, 'future_remove', ['ratings:write']);
    await bulk(app, m.token, 'ratings', [{ movie_db_id: SPIRITED_AWAY, rating: 4 }]);
    const res = await bulk(app, m.token, 'ratings', [{ client_item_id: 'rm', movie_db_id: SPIRITED_AWAY, remove: true }]);
    expect((res.body.results as Array<Record<string, unknown>>).map((r) => r.status)).toEqual(['removed']);
  });
});
