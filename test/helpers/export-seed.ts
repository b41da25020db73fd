// A library in every resource the export holds, written through the platform API (and the catalog's
// special episode by SQL: the synthetic shows have none), for the export and round-trip tests.
import { expect } from 'vitest';
import { SCOPES } from '../../src/core/apps/scopes.ts';
import { query } from '../../src/core/db/sql.ts';
import type { TestApp } from './app.ts';
import { request } from './http.ts';
import { FIRST_SHOW, member, ok, platform, SPIRITED_AWAY, type Member } from './seed.ts';
import { bulk } from './sync-client.ts';

export const TOY_STORY = 862;
export const DROPPED_SHOW = FIRST_SHOW + 1;
export const PLANNED_SHOW = FIRST_SHOW + 2;

/** An official app's user holding every scope. */
export function exporter(app: TestApp, username: string): Promise<Member> {
  return member(app, username, [...SCOPES], { official: true });
}

/** A special (season 0, episode 1) of the first show, which the synthetic catalog does not make. */
export async function addSpecial(app: TestApp): Promise<void> {
  await query(app.db.orm.em.fork(), {
    text: `insert into episode (title_id, season_number, episode_number, name, air_date, runtime_minutes)
      select id, 0, 1, 'Behind the scenes', '2001-01-01', 12 from title where type = 'show' and movie_db_id = $1`,
    params: [FIRST_SHOW],
  });
}

/** Writes one of everything; what the server assigns (ids, times) is read back by the tests. */
export async function seedLibrary(app: TestApp, m: Member): Promise<void> {
  const t = m.token;
  const history = await ok(bulk(app, t, 'history', [
    { movie_db_id: SPIRITED_AWAY, watched_at: '2024-01-02T20:00:00.000Z', runtime_minutes: 125 },
    { movie_db_id: FIRST_SHOW, season: 1, episode: 1, watched_at: '2024-02-01T20:00:00.000Z' },
    { movie_db_id: FIRST_SHOW, season: 1, episode: 2, watched_at: '2024-02-02T20:00:00.000Z' },
    { movie_db_id: FIRST_SHOW, season: 0, episode: 1, watched_at: '2024-02-03T20:00:00.000Z' },
  ]));
  expect(history.inserted).toBe(4);
  const ratings = await ok(bulk(app, t, 'ratings', [
    { movie_db_id: SPIRITED_AWAY, rating: 9, rated_at: '2024-01-03T10:00:00.000Z' },
    { movie_db_id: FIRST_SHOW, type: 'show', rating: 8, rated_at: '2024-02-04T10:00:00.000Z' },
    { movie_db_id: FIRST_SHOW, type: 'show', season: 1, rating: 7, rated_at: '2024-02-05T10:00:00.000Z' },
    { movie_db_id: FIRST_SHOW, type: 'show', season: 1, episode: 1, rating: 10, rated_at: '2024-02-06T10:00:00.000Z' },
  ]));
  expect(ratings.inserted).toBe(4);
  const watchlist = await ok(bulk(app, t, 'watchlist', [{ movie_db_id: TOY_STORY }, { movie_db_id: PLANNED_SHOW, type: 'show' }]));
  expect(watchlist.inserted).toBe(2);
  await ok(platform(app, t, 'POST', '/favourites', { type: 'movie', movieDbId: SPIRITED_AWAY }));
  await ok(platform(app, t, 'POST', '/favourites', { type: 'show', movieDbId: FIRST_SHOW }));
  await ok(platform(app, t, 'PUT', `/show-status/show/${DROPPED_SHOW}`, { status: 'dropped' }));
  await ok(platform(app, t, 'PUT', `/show-status/show/${PLANNED_SHOW}`, { status: 'planned' }));
  const best = await ok(platform(app, t, 'POST', '/lists', { name: 'Best of', description: 'Top picks', isPublic: true }));
  await ok(platform(app, t, 'POST', `/lists/${best.id}/items`, { items: [{ type: 'movie', movieDbId: TOY_STORY }, { type: 'show', movieDbId: FIRST_SHOW }, { type: 'movie', movieDbId: SPIRITED_AWAY }] }));
  await ok(platform(app, t, 'POST', '/lists', { name: 'Someday' }));
  await ok(platform(app, t, 'POST', '/me/collection', { type: 'movie', movieDbId: SPIRITED_AWAY, format: 'bluray', notes: 'Steelbook' }));
  await ok(platform(app, t, 'POST', '/me/collection', { type: 'show', movieDbId: FIRST_SHOW, format: 'dvd', season: 1 }));
  const now = Date.now();
  await ok(platform(app, t, 'POST', '/playback/stop', {
    event_id: `seed-1-${m.userId}`, event_created_at: now - 60_000, media_type: 'movie', title: 'x', movie_db_id: TOY_STORY,
    playback_session_id: 'seed-movie', progress: 0.4, duration_seconds: 4860, position_seconds: 1944,
  }));
  await ok(platform(app, t, 'POST', '/playback/stop', {
    event_id: `seed-2-${m.userId}`, event_created_at: now - 30_000, media_type: 'episode', title: 'x', movie_db_id: DROPPED_SHOW, season: 1, episode: 2,
    playback_session_id: 'seed-show', progress: 0.5,
  }));
  await ok(platform(app, t, 'PATCH', '/me/preferences', { region: 'de', language: 'en-gb', spoilers: { hideImages: true }, watchedThreshold: 0.8 }));
  await ok(platform(app, t, 'PATCH', '/me/notification-preferences', { new_episode: { push: false }, list_liked: { inApp: false } }));
  await ok(platform(app, t, 'PATCH', '/me/profile', { displayName: 'Alice Export', bio: 'I watch things', privacy: 'private' }));
}

/** The export over REST, parsed; with the response for its headers. */
export async function exportOf(app: TestApp, token: string): Promise<{ status: number; headers: Headers; text: string; body: Record<string, unknown> }> {
  const res = await request(app, '/api/platform/v1/me/export', { token });
  return { ...res, body: JSON.parse(res.text) as Record<string, unknown> };
}
