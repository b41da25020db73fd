// Watch history over HTTP: logging a movie, an episode, a season and a whole show (deduplicated),
// reading pages with filters, editing and removing entries, the scopes and every error code, and the
// change-feed records each write leaves.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { query } from '../src/core/db/sql.ts';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { changesOf } from './helpers/change-log.ts';
import { expectError } from './helpers/envelope.ts';
import { FIRST_SHOW, member, platform, seedCatalog, SPIRITED_AWAY, tokenWith, type Member } from './helpers/seed.ts';

let app: TestApp;
let alice: Member;
let bob: Member;
const em = () => app.db.orm.em.fork();
const ALL = ['history:read', 'history:write'];

beforeAll(async () => {
  app = await startTestApp();
  await seedCatalog(app, { shows: 3 });
  alice = await member(app, 'alice', ALL);
  bob = await member(app, 'bob', ALL);
});
afterAll(() => app?.stop());

const ITEM_KEYS = ['backdropPath', 'episode', 'episodeTitle', 'id', 'isAnime', 'movieDbId', 'name', 'posterPath', 'runtimeMinutes', 'season', 'stillPath', 'type', 'watchedAt', 'year'];

/** Episodes of a show (aired or not), from the catalog. */
async function episodesOf(movieDbId: number, season?: number) {
  return query<{ season_number: number; episode_number: number; aired: boolean }>(em(), {
    text: `select e.season_number, e.episode_number, (e.air_date is null or e.air_date <= (now() at time zone 'UTC')::date) as aired
      from episode e join title t on t.id = e.title_id where t.type = 'show' and t.movie_db_id = $1 and ($2::int is null or e.season_number = $2) and e.season_number > 0
      order by 1, 2`,
    params: [movieDbId, season ?? null],
  });
}

describe('POST /watch-history', () => {
  it('logs a movie: the entry in the history item shape, then the same watch again within the hour is skipped', async () => {
    const res = await platform(app, alice.token, 'POST', '/watch-history', { type: 'movie', movieDbId: SPIRITED_AWAY, watchedAt: '2026-01-10T20:00:00Z' });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['inserted', 'items', 'skipped']);
    expect(res.body).toMatchObject({ inserted: 1, skipped: 0 });
    const [item] = res.body.items as Record<string, unknown>[];
    expect(Object.keys(item!).sort()).toEqual([...ITEM_KEYS, 'status'].sort());
    expect(item).toEqual({
      id: expect.any(Number),
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
      runtimeMinutes: expect.any(Number),
      watchedAt: '2026-01-10T20:00:00.000Z',
      status: 'inserted',
    });
    const again = await platform(app, alice.token, 'POST', '/watch-history', { type: 'movie', movieDbId: SPIRITED_AWAY, watchedAt: '2026-01-10T20:40:00+00:00' });
    expect(again.body).toMatchObject({ inserted: 0, skipped: 1, items: [{ id: item!.id, status: 'skipped', watchedAt: '2026-01-10T20:00:00.000Z' }] });
    const later = await platform(app, alice.token, 'POST', '/watch-history', { type: 'movie', movieDbId: SPIRITED_AWAY, watchedAt: '2026-01-10T21:00:01Z' });
    expect(later.body).toMatchObject({ inserted: 1, skipped: 0 });
  });

  it('defaults watchedAt to now', async () => {
    const before = Date.now();
    const res = await platform(app, bob.token, 'POST', '/watch-history', { type: 'movie', movieDbId: SPIRITED_AWAY });
    const [item] = res.body.items as { watchedAt: string }[];
    expect(Date.parse(item!.watchedAt)).toBeGreaterThanOrEqual(before - 1000);
    expect(Date.parse(item!.watchedAt)).toBeLessThanOrEqual(Date.now() + 1000);
  });

  it('logs one episode with its title and still', async () => {
    const res = await platform(app, alice.token, 'POST', '/watch-history', { type: 'show', movieDbId: FIRST_SHOW, season: 1, episode: 2, watchedAt: '2026-01-11T20:00:00Z' });
    expect(res.status).toBe(200);
    const [item] = res.body.items as Record<string, unknown>[];
    expect(item).toMatchObject({ type: 'show', movieDbId: FIRST_SHOW, season: 1, episode: 2, episodeTitle: expect.any(String), stillPath: expect.any(String), status: 'inserted' });
    expect((item!.episodeTitle as string).length).toBeGreaterThan(0);
  });

  it('logs every aired episode of a season, and of a whole show (regular seasons), one entry each', async () => {
    const carol = await member(app, 'carol', ALL);
    const season1 = (await episodesOf(FIRST_SHOW, 1)).filter((e) => e.aired);
    const res = await platform(app, carol.token, 'POST', '/watch-history', { type: 'show', movieDbId: FIRST_SHOW, season: 1, watchedAt: '2026-01-12T20:00:00Z' });
    expect(res.status).toBe(200);
    expect(res.body.inserted).toBe(season1.length);
    expect((res.body.items as { season: number; episode: number }[]).map((i) => [i.season, i.episode])).toEqual(season1.map((e) => [e.season_number, e.episode_number]));

    const aired = (await episodesOf(FIRST_SHOW)).filter((e) => e.aired);
    const whole = await platform(app, carol.token, 'POST', '/watch-history', { type: 'show', movieDbId: FIRST_SHOW, watchedAt: '2026-01-12T20:30:00Z' });
    expect(whole.body).toMatchObject({ inserted: aired.length - season1.length, skipped: season1.length });
    expect((whole.body.items as unknown[]).length).toBe(aired.length);
  });

  it('answers 404 not_found for an unknown title, season or episode, and for show ids under movie', async () => {
    expectError(await platform(app, alice.token, 'POST', '/watch-history', { type: 'movie', movieDbId: 999_999 }), 404, 'not_found');
    expectError(await platform(app, alice.token, 'POST', '/watch-history', { type: 'movie', movieDbId: FIRST_SHOW }), 404, 'not_found');
    expectError(await platform(app, alice.token, 'POST', '/watch-history', { type: 'movie', movieDbId: 2_147_483_647 }), 404, 'not_found');
    expectError(await platform(app, alice.token, 'POST', '/watch-history', { type: 'show', movieDbId: FIRST_SHOW, season: 99 }), 404, 'not_found');
    expectError(await platform(app, alice.token, 'POST', '/watch-history', { type: 'show', movieDbId: FIRST_SHOW, season: 1, episode: 999 }), 404, 'not_found');
  });

  it('answers 400 invalid_request for bad input', async () => {
    const bad = [
      {},
      { type: 'book', movieDbId: 1 },
      { type: 'movie', movieDbId: 0 },
      { type: 'movie', movieDbId: 1.5 },
      { type: 'movie', movieDbId: '129' },
      { type: 'movie', movieDbId: 2_147_483_648 },
      { type: 'movie', movieDbId: SPIRITED_AWAY, season: 1 },
      { type: 'show', movieDbId: FIRST_SHOW, episode: 1 },
      { type: 'show', movieDbId: FIRST_SHOW, season: -1 },
      { type: 'show', movieDbId: FIRST_SHOW, season: 1, episode: 0 },
      { type: 'movie', movieDbId: SPIRITED_AWAY, watchedAt: 'yesterday' },
      { type: 'movie', movieDbId: SPIRITED_AWAY, watchedAt: '2026-01-10T20:00:00' },
      { type: 'movie', movieDbId: SPIRITED_AWAY, watchedAt: new Date(Date.now() + 3_600_000).toISOString() },
      { type: 'movie', movieDbId: SPIRITED_AWAY, extra: true },
    ];
    for (const body of bad) {
      const res = await platform(app, alice.token, 'POST', '/watch-history', body);
      expectError(res, 400, 'invalid_request');
    }
  });
});

describe('GET /me/history', () => {
  let dave: Member;
  beforeAll(async () => {
    dave = await member(app, 'dave', ALL);
    await platform(app, dave.token, 'POST', '/watch-history', { type: 'movie', movieDbId: SPIRITED_AWAY, watchedAt: '2026-02-01T10:00:00Z' });
    await platform(app, dave.token, 'POST', '/watch-history', { type: 'show', movieDbId: FIRST_SHOW, season: 1, episode: 1, watchedAt: '2026-02-02T10:00:00Z' });
    await platform(app, dave.token, 'POST', '/watch-history', { type: 'show', movieDbId: FIRST_SHOW, season: 1, episode: 2, watchedAt: '2026-02-02T10:00:00Z' });
    await platform(app, dave.token, 'POST', '/watch-history', { type: 'movie', movieDbId: SPIRITED_AWAY, watchedAt: '2026-02-03T10:00:00Z' });
  });

  it('pages newest first by (watchedAt, id), nextCursor absent on the last page', async () => {
    const first = await platform(app, dave.token, 'GET', '/me/history?limit=3');
    expect(first.status).toBe(200);
    expect(Object.keys(first.body).sort()).toEqual(['items', 'nextCursor']);
    const items = first.body.items as { id: number; watchedAt: string; episode: number | null }[];
    expect(items.map((i) => [i.watchedAt, i.episode])).toEqual([
      ['2026-02-03T10:00:00.000Z', null],
      ['2026-02-02T10:00:00.000Z', 2],
      ['2026-02-02T10:00:00.000Z', 1],
    ]);
    for (const item of items) expect(Object.keys(item).sort()).toEqual(ITEM_KEYS);
    const second = await platform(app, dave.token, 'GET', `/me/history?limit=3&cursor=${first.body.nextCursor as string}`);
    expect(Object.keys(second.body)).toEqual(['items']);
    expect((second.body.items as { watchedAt: string }[]).map((i) => i.watchedAt)).toEqual(['2026-02-01T10:00:00.000Z']);
  });

  it('defaults to 50 and takes 100, refusing 0, 101 and non-integers', async () => {
    expect((await platform(app, dave.token, 'GET', '/me/history')).status).toBe(200);
    expect((await platform(app, dave.token, 'GET', '/me/history?limit=100')).status).toBe(200);
    expect((await platform(app, dave.token, 'GET', '/me/history?limit=1')).status).toBe(200);
    for (const limit of ['0', '101', '2.5', 'x']) expectError(await platform(app, dave.token, 'GET', `/me/history?limit=${limit}`), 400, 'invalid_request');
  });

  it('filters by type (category) and by time range [startAt, endAt)', async () => {
    const movies = await platform(app, dave.token, 'GET', '/me/history?type=movie');
    expect((movies.body.items as { type: string }[]).map((i) => i.type)).toEqual(['movie', 'movie']);
    const shows = await platform(app, dave.token, 'GET', '/me/history?type=show');
    expect((shows.body.items as unknown[]).length).toBe(2);
    expect((await platform(app, dave.token, 'GET', '/me/history?type=anime')).body).toEqual({ items: [] });
    const range = await platform(app, dave.token, 'GET', '/me/history?startAt=2026-02-02T10:00:00Z&endAt=2026-02-03T10:00:00Z');
    expect((range.body.items as { watchedAt: string }[]).map((i) => i.watchedAt)).toEqual(['2026-02-02T10:00:00.000Z', '2026-02-02T10:00:00.000Z']);
    expectError(await platform(app, dave.token, 'GET', '/me/history?type=book'), 400, 'invalid_request');
    expectError(await platform(app, dave.token, 'GET', '/me/history?startAt=yesterday'), 400, 'invalid_request');
    expectError(await platform(app, dave.token, 'GET', '/me/history?startAt=2026-02-03T00:00:00Z&endAt=2026-02-02T00:00:00Z'), 400, 'invalid_request');
    expectError(await platform(app, dave.token, 'GET', '/me/history?sort=asc'), 400, 'invalid_request');
  });

  it('refuses a cursor replayed with other filters, or a made-up cursor, with invalid_request', async () => {
    const first = await platform(app, dave.token, 'GET', '/me/history?limit=1&type=movie');
    const cursor = first.body.nextCursor as string;
    expect((await platform(app, dave.token, 'GET', `/me/history?limit=5&type=movie&cursor=${cursor}`)).status).toBe(200);
    expectError(await platform(app, dave.token, 'GET', `/me/history?limit=1&type=show&cursor=${cursor}`), 400, 'invalid_request');
    expectError(await platform(app, dave.token, 'GET', `/me/history?limit=1&cursor=${cursor}`), 400, 'invalid_request');
    expectError(await platform(app, dave.token, 'GET', '/me/history?cursor=bm90LWEtY3Vyc29y'), 400, 'invalid_request');
  });

  it('shows only the acting user\'s entries', async () => {
    const erin = await member(app, 'erin', ALL);
    expect((await platform(app, erin.token, 'GET', '/me/history')).body).toEqual({ items: [] });
  });
});

describe('PATCH and DELETE /watch-history/{id}', () => {
  it('PATCH moves an entry and answers exactly {id, watchedAt}; the change is recorded with the full item', async () => {
    const frank = await member(app, 'frank', ALL);
    const logged = await platform(app, frank.token, 'POST', '/watch-history', { type: 'movie', movieDbId: SPIRITED_AWAY, watchedAt: '2026-03-01T10:00:00Z' });
    const id = (logged.body.items as { id: number }[])[0]!.id;
    const res = await platform(app, frank.token, 'PATCH', `/watch-history/${id}`, { watchedAt: '2026-03-02T12:30:00+02:00' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id, watchedAt: '2026-03-02T10:30:00.000Z' });
    const listed = await platform(app, frank.token, 'GET', '/me/history');
    expect((listed.body.items as { id: number; watchedAt: string }[])[0]).toMatchObject({ id, watchedAt: '2026-03-02T10:30:00.000Z' });
    const changes = await changesOf(app, frank.userId);
    expect(changes.map((c) => [c.resource, c.resource_id, c.op])).toEqual([['history', String(id), 'upsert'], ['history', String(id), 'upsert']]);
    expect(changes[1]!.data).toEqual((listed.body.items as unknown[])[0]);
    expect(changes[0]!.data).toEqual({ ...(logged.body.items as Record<string, unknown>[])[0], status: undefined });
  });

  it('PATCH: 400 for a bad date, a missing or extra field, a bad id; 404 for an unknown id or someone else\'s entry', async () => {
    const logged = await platform(app, alice.token, 'POST', '/watch-history', { type: 'movie', movieDbId: SPIRITED_AWAY, watchedAt: '2025-05-01T10:00:00Z' });
    const id = (logged.body.items as { id: number }[])[0]!.id;
    for (const body of [{ watchedAt: 'not a date' }, { watchedAt: '2026-13-01T00:00:00Z' }, { watchedAt: 5 }, { watchedAt: null }, {}, { watchedAt: '2025-05-01T10:00:00Z', note: 'x' }, { watchedAt: new Date(Date.now() + 86_400_000).toISOString() }]) {
      const res = await platform(app, alice.token, 'PATCH', `/watch-history/${id}`, body);
      expectError(res, 400, 'invalid_request');
    }
    expectError(await platform(app, alice.token, 'PATCH', '/watch-history/abc', { watchedAt: '2025-05-01T10:00:00Z' }), 400, 'invalid_request');
    expectError(await platform(app, alice.token, 'PATCH', '/watch-history/0', { watchedAt: '2025-05-01T10:00:00Z' }), 400, 'invalid_request');
    expectError(await platform(app, bob.token, 'PATCH', `/watch-history/${id}`, { watchedAt: '2025-05-01T10:00:00Z' }), 404, 'not_found');
    expectError(await platform(app, alice.token, 'PATCH', '/watch-history/999999999', { watchedAt: '2025-05-01T10:00:00Z' }), 404, 'not_found');
  });

  it('DELETE removes the entry and records a delete; someone else\'s or an unknown entry is 404', async () => {
    const gina = await member(app, 'gina', ALL);
    const logged = await platform(app, gina.token, 'POST', '/watch-history', { type: 'movie', movieDbId: SPIRITED_AWAY, watchedAt: '2026-03-01T10:00:00Z' });
    const id = (logged.body.items as { id: number }[])[0]!.id;
    expectError(await platform(app, bob.token, 'DELETE', `/watch-history/${id}`), 404, 'not_found');
    const res = await platform(app, gina.token, 'DELETE', `/watch-history/${id}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id, deleted: true });
    expect((await platform(app, gina.token, 'GET', '/me/history')).body).toEqual({ items: [] });
    expectError(await platform(app, gina.token, 'DELETE', `/watch-history/${id}`), 404, 'not_found');
    const changes = await changesOf(app, gina.userId);
    expect(changes.at(-1)).toEqual({ resource: 'history', resource_id: String(id), op: 'delete', data: null });
  });
});

describe('scopes', () => {
  it('reads need history:read, writes history:write (403 insufficient_scope naming it); no token is 401', async () => {
    const readOnly = await tokenWith(app, alice, ['history:read']);
    const writeOnly = await tokenWith(app, alice, ['history:write']);
    expectError(await platform(app, writeOnly, 'GET', '/me/history'), 403, 'insufficient_scope', { required_scope: 'history:read' });
    for (const [method, path, body] of [
      ['POST', '/watch-history', { type: 'movie', movieDbId: SPIRITED_AWAY }],
      ['PATCH', '/watch-history/1', { watchedAt: '2025-05-01T10:00:00Z' }],
      ['DELETE', '/watch-history/1', undefined],
    ] as const) {
      expectError(await platform(app, readOnly, method, path, body), 403, 'insufficient_scope', { required_scope: 'history:write' });
      expectError(await platform(app, null, method, path, body), 401, 'invalid_token');
    }
    expectError(await platform(app, null, 'GET', '/me/history'), 401, 'invalid_token');
  });
});
