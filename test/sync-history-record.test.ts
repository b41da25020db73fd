// The change record of a history entry is built by the insert itself (src/core/library/history-write.ts,
// in SQL), while GET /me/history builds its items in code (toHistoryItem): the two must stay the same
// record, field for field, for movies and episodes, from every writer (bulk sync, the history API).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { FIRST_SHOW, member, platform, seedCatalog, SPIRITED_AWAY, type Member } from './helpers/seed.ts';
import { bulk, readFeed, settled } from './helpers/sync-client.ts';

let app: TestApp;
let dana: Member;

beforeAll(async () => {
  app = await startTestApp();
  await seedCatalog(app, { shows: 1 });
  dana = await member(app, 'dana', ['history:write', 'history:read']);
});
afterAll(() => app?.stop());

describe('history change records', () => {
  it('equal the GET /me/history items, for movies and episodes, from bulk sync and the history API', async () => {
    const synced = await bulk(app, dana.token, 'history', [
      { movie_db_id: SPIRITED_AWAY, watched_at: '2026-03-01T20:00:00.123Z' },
      { movie_db_id: FIRST_SHOW, season: 1, episode: 1, watched_at: '2026-03-02T20:00:00Z' },
      { movie_db_id: SPIRITED_AWAY, watched_at: '2026-03-03T20:00:00Z', runtime_minutes: 7 },
    ]);
    expect(synced.status).toBe(200);
    expect(synced.body.inserted).toBe(3);
    const logged = await platform(app, dana.token, 'POST', '/watch-history', { type: 'show', movieDbId: FIRST_SHOW, season: 1, episode: 2, watchedAt: '2026-03-04T20:00:00Z' });
    expect(logged.status).toBe(200);
    expect(logged.body.inserted).toBe(1);
    await settled(app, dana.userId);

    const history = await platform(app, dana.token, 'GET', '/me/history?limit=100');
    expect(history.status).toBe(200);
    const items = history.body.items as Array<Record<string, unknown>>;
    expect(items).toHaveLength(4);
    const feed = await readFeed(app, dana.token, { resources: 'history' });
    expect(feed.changes).toHaveLength(4);
    const byId = new Map(feed.changes.map((c) => [c.resourceId, c.data]));
    for (const item of items) expect(byId.get(String(item.id))).toEqual(item);
    // Both kinds are there: a movie (no episode fields) and episodes with their title and still.
    expect(items.map((i) => [i.type, i.season, i.episode])).toEqual([
      ['show', 1, 2],
      ['movie', null, null],
      ['show', 1, 1],
      ['movie', null, null],
    ]);
    expect(items[1]!.runtimeMinutes).toBe(7);
    expect(items[3]!.watchedAt).toBe('2026-03-01T20:00:00.123Z');
  });
});
