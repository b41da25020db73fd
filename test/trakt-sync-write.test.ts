// Trakt's sync writes on the facade: POST /trakt/sync/{history,ratings,watchlist,collection}[/remove].
// Exact answer shapes (Trakt's added / existing / deleted / not_found, not_found echoing the items as
// sent), that the writes are the platform's (its /me/history, its change feed, idempotency keys per
// batch of 100), and the statuses: 201, 200, 400, 401, 403, 412, 413, 422.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { FIRST_SHOW, member, platform, seedCatalog, SPIRITED_AWAY, tokenWith, type Member } from './helpers/seed.ts';
import { sql, titleId } from './helpers/title-fixtures.ts';
import { trakt } from './helpers/trakt.ts';

let app: TestApp;
let alice: Member;
let movieTraktId: number;
let showTraktId: number;
/** Aired episodes of FIRST_SHOW's season 1, by number, and their row (trakt) ids. */
let season1: { id: number; number: number }[];
let season1Id: number;

const SCOPES = ['history:read', 'history:write', 'ratings:read', 'ratings:write', 'lists:read', 'lists:write', 'collection:read', 'collection:write'];
const NOBODY = 999_999_999;
const none = { movies: [], shows: [], seasons: [], episodes: [] };
const iso = (ms: number) => new Date(ms).toISOString();

async function airedEpisodes(showRowId: string, season: number | null) {
  const rows = await sql<{ id: string; episode_number: number }>(
    app,
    `select id, episode_number from episode where title_id = $1 and (air_date is null or air_date <= (now() at time zone 'UTC')::date)
     and ($2::int is null and season_number > 0 or season_number = $2::int) order by season_number, episode_number`,
    [showRowId, season],
  );
  return rows.map((r) => ({ id: Number(r.id), number: r.episode_number }));
}

async function historyRows(m: Member) {
  return sql<{ id: string; episode_id: string | null; watched_at: Date }>(app, 'select id, episode_id, watched_at from watch_history where user_id = $1 order by id', [m.userId]);
}

beforeAll(async () => {
  app = await startTestApp();
  await seedCatalog(app, { shows: 3 });
  alice = await member(app, 'alice', SCOPES);
  movieTraktId = Number(await titleId(app, { type: 'movie', movieDbId: SPIRITED_AWAY }));
  const show = await titleId(app, { type: 'show', movieDbId: FIRST_SHOW });
  showTraktId = Number(show);
  season1 = await airedEpisodes(show, 1);
  const [s] = await sql<{ id: string }>(app, 'select id from season where title_id = $1 and season_number = 1', [show]);
  season1Id = Number(s!.id);
  expect(season1.length).toBeGreaterThan(2);
});
afterAll(() => app?.stop());

describe('POST /trakt/sync/history', () => {
  it('adds movies and episodes, answers 201 with Trakt\'s counts, and echoes what it did not find', async () => {
    const m = await member(app, 'hist', SCOPES);
    const unknownMovie = { ids: { tmdb: NOBODY }, watched_at: '2024-01-01T10:00:00.000Z' };
    const unknownEpisode = { ids: { trakt: NOBODY } };
    const missingPart = { number: 1, episodes: [{ number: season1[0]!.number, watched_at: '2024-01-02T10:00:00.000Z' }, { number: 9999 }] };
    const body = {
      movies: [{ ids: { tmdb: SPIRITED_AWAY }, watched_at: '2024-01-01T08:00:00.000Z' }, unknownMovie],
      shows: [{ ids: { trakt: showTraktId }, seasons: [missingPart] }],
      episodes: [{ ids: { trakt: season1[1]!.id }, watched_at: '2024-01-03T10:00:00.000Z' }, unknownEpisode],
      seasons: [{ ids: { tvdb: 12 } }],
    };
    const res = await trakt(app, m, 'POST', '/sync/history', body);
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      added: { movies: 1, episodes: 2 },
      not_found: {
        movies: [unknownMovie],
        // The show was found: just its episode that was not, under its season as sent.
        shows: [{ ids: { trakt: showTraktId }, seasons: [{ number: 1, episodes: [{ number: 9999 }] }] }],
        seasons: [{ ids: { tvdb: 12 } }],
        episodes: [unknownEpisode],
      },
    });
    const rows = await historyRows(m);
    expect(rows.map((r) => r.watched_at.toISOString()).sort()).toEqual(['2024-01-01T08:00:00.000Z', '2024-01-02T10:00:00.000Z', '2024-01-03T10:00:00.000Z']);

    // The platform API sees the same entries, and its change feed the writes.
    const history = await platform(app, m.token, 'GET', '/me/history');
    expect(history.status).toBe(200);
    expect((history.body.items as { id: number }[]).map((i) => i.id).sort()).toEqual(rows.map((r) => Number(r.id)).sort());
    const feed = await platform(app, m.token, 'GET', '/me/sync/changes?resources=history');
    expect(feed.status).toBe(200);
    const changes = feed.body.changes as { resource: string; resourceId: string; op: string }[];
    expect(changes.filter((c) => c.resource === 'history' && c.op === 'upsert').map((c) => Number(c.resourceId)).sort()).toEqual(rows.map((r) => Number(r.id)).sort());
  });

  it('a show without seasons is every aired episode, a season item every aired episode of it; a watch within the hour is not added again', async () => {
    const m = await member(app, 'whole', SCOPES);
    const every = await airedEpisodes(String(showTraktId), null);
    const res = await trakt(app, m, 'POST', '/sync/history', { shows: [{ ids: { tmdb: FIRST_SHOW }, watched_at: '2023-05-01T12:00:00.000Z' }] });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ added: { movies: 0, episodes: every.length }, not_found: none });
    const again = await trakt(app, m, 'POST', '/sync/history', { seasons: [{ ids: { trakt: season1Id }, watched_at: '2023-05-01T12:30:00.000Z' }] });
    expect(again.body).toEqual({ added: { movies: 0, episodes: 0 }, not_found: none });
    const later = await trakt(app, m, 'POST', '/sync/history', { seasons: [{ ids: { trakt: season1Id }, watched_at: '2023-06-01T12:00:00.000Z' }] });
    expect(later.body).toEqual({ added: { movies: 0, episodes: season1.length }, not_found: none });
    expect((await historyRows(m)).length).toBe(every.length + season1.length);
  });

  it('splits a body of more than 100 items into batches, each with its own key: the same Idempotency-Key replays them', async () => {
    const m = await member(app, 'batches', SCOPES);
    const start = Date.UTC(2020, 0, 1);
    const episodes = Array.from({ length: 150 }, (_, i) => ({ ids: { trakt: season1[0]!.id }, watched_at: iso(start + i * 2 * 3_600_000) }));
    const key = 'trakt-batch-key-1';
    const first = await trakt(app, m, 'POST', '/sync/history', { episodes }, { 'idempotency-key': key });
    expect(first.status).toBe(201);
    expect(first.body).toEqual({ added: { movies: 0, episodes: 150 }, not_found: none });
    const replay = await trakt(app, m, 'POST', '/sync/history', { episodes }, { 'idempotency-key': key });
    expect(replay.body).toEqual(first.body);
    expect((await historyRows(m)).length).toBe(150);
    const keys = await sql<{ key: string }>(app, 'select idempotency_key as key from sync_idempotency where user_id = $1 order by 1', [m.userId]);
    expect(keys.map((k) => k.key)).toEqual([key, `${key}:2`]);
    // Without a key, each request is a write of its own (fresh keys), as on Trakt.
    const dated = { episodes: [{ ids: { trakt: season1[0]!.id }, watched_at: '2019-01-01T00:00:00.000Z' }] };
    expect((await trakt(app, m, 'POST', '/sync/history', dated)).body).toEqual({ added: { movies: 0, episodes: 1 }, not_found: none });
    expect((await trakt(app, m, 'POST', '/sync/history', dated)).body).toEqual({ added: { movies: 0, episodes: 0 }, not_found: none });
  });

  it('409 when the client\'s Idempotency-Key comes again with another body', async () => {
    const m = await member(app, 'conflict', SCOPES);
    const key = 'trakt-conflict-key';
    const first = await trakt(app, m, 'POST', '/sync/history', { movies: [{ ids: { tmdb: SPIRITED_AWAY }, watched_at: '2021-01-01T00:00:00.000Z' }] }, { 'idempotency-key': key });
    expect(first.status).toBe(201);
    const other = await trakt(app, m, 'POST', '/sync/history', { movies: [{ ids: { tmdb: SPIRITED_AWAY }, watched_at: '2021-02-01T00:00:00.000Z' }] }, { 'idempotency-key': key });
    expect(other.status).toBe(409);
    expect(other.body).toEqual({ error: 'idempotency_conflict', error_description: expect.any(String) });
    expect((await historyRows(m)).length).toBe(1);
  });

  it('412 for a body that is not JSON', async () => {
    const res = await trakt(app, alice, 'POST', '/sync/history', 'movies=1', { 'content-type': 'application/x-www-form-urlencoded' });
    expect(res.status).toBe(412);
    expect(res.body).toEqual({ error: 'invalid_request', error_description: expect.any(String) });
  });

  it('400 for a body that is no object; 422 for a malformed item, nothing written', async () => {
    const m = await member(app, 'malformed', SCOPES);
    expect((await trakt(app, m, 'POST', '/sync/history', [])).status).toBe(400);
    for (const body of [
      { movies: [{ ids: { tmdb: SPIRITED_AWAY } }, { watched_at: '2024-01-01T00:00:00Z' }] },
      { movies: [{ ids: { tmdb: SPIRITED_AWAY }, watched_at: 'yesterday' }] },
      { movies: [{ ids: { tmdb: SPIRITED_AWAY }, watched_at: '2999-01-01T00:00:00Z' }] },
      { movies: 'all' },
    ]) {
      const res = await trakt(app, m, 'POST', '/sync/history', body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(res.body).toEqual({ error: 'invalid_request', error_description: expect.any(String) });
    }
    expect(await historyRows(m)).toEqual([]);
  });

  it('401 without a token, 403 without history:write', async () => {
    const anon = await trakt(app, { clientId: alice.clientId }, 'POST', '/sync/history', { movies: [] });
    expect(anon.status).toBe(401);
    const readOnly = await tokenWith(app, alice, ['history:read']);
    const res = await trakt(app, { clientId: alice.clientId, token: readOnly }, 'POST', '/sync/history', { movies: [{ ids: { tmdb: SPIRITED_AWAY } }] });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ error: 'insufficient_scope', error_description: expect.any(String) });
  });

  it('accepts a body of exactly 512 KiB and answers 413 for one byte more', async () => {
    const m = await member(app, 'sizes', SCOPES);
    const send = (size: number) => {
      const json = JSON.stringify({ movies: [{ ids: { tmdb: SPIRITED_AWAY }, watched_at: '2022-01-01T00:00:00.000Z' }] });
      const body = json.replace(/}\]}$/, `${' '.repeat(size - json.length)}}]}`);
      expect(Buffer.byteLength(body)).toBe(size);
      return trakt(app, m, 'POST', '/sync/history', body);
    };
    const fits = await send(512 * 1024);
    expect(fits.status).toBe(201);
    expect(fits.body).toEqual({ added: { movies: 1, episodes: 0 }, not_found: none });
    const over = await send(512 * 1024 + 1);
    expect(over.status).toBe(413);
  });
});

describe('POST /trakt/sync/history/remove', () => {
  it('removes every watch of what is named and the entries of ids; 200 with Trakt\'s counts', async () => {
    const m = await member(app, 'remover', SCOPES);
    await trakt(app, m, 'POST', '/sync/history', {
      movies: [{ ids: { trakt: movieTraktId }, watched_at: '2024-01-01T00:00:00.000Z' }, { ids: { trakt: movieTraktId }, watched_at: '2024-02-01T00:00:00.000Z' }],
      episodes: [{ ids: { trakt: season1[0]!.id }, watched_at: '2024-01-01T00:00:00.000Z' }, { ids: { trakt: season1[1]!.id }, watched_at: '2024-01-01T00:00:00.000Z' }],
    });
    const rows = await historyRows(m);
    const second = rows.find((r) => r.episode_id === String(season1[1]!.id))!;
    const unknown = { ids: { slug: 'no-such-movie-1900' } };
    const res = await trakt(app, m, 'POST', '/sync/history/remove', {
      movies: [{ ids: { tmdb: SPIRITED_AWAY } }, unknown],
      shows: [{ ids: { trakt: showTraktId }, seasons: [{ number: 1, episodes: [{ number: season1[0]!.number }, { number: 9999 }] }] }],
      ids: [Number(second.id), NOBODY],
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      deleted: { movies: 2, episodes: 2 },
      not_found: { movies: [unknown], shows: [{ ids: { trakt: showTraktId }, seasons: [{ number: 1, episodes: [{ number: 9999 }] }] }], seasons: [], episodes: [], ids: [NOBODY] },
    });
    expect(await historyRows(m)).toEqual([]);
    const feed = await platform(app, m.token, 'GET', '/me/sync/changes?resources=history');
    // Delivery is at least once: an item may come more than once.
    const deletes = new Set((feed.body.changes as { op: string; resourceId: string }[]).filter((c) => c.op === 'delete').map((c) => Number(c.resourceId)));
    expect([...deletes].sort()).toEqual(rows.map((r) => Number(r.id)).sort());
  });
});

describe('POST /trakt/sync/ratings and /remove', () => {
  it('rates movies, shows, seasons and episodes (201), then removes them (200)', async () => {
    const m = await member(app, 'rater', SCOPES);
    const unknownShow = { ids: { tvdb: NOBODY }, rating: 5 };
    const res = await trakt(app, m, 'POST', '/sync/ratings', {
      movies: [{ ids: { tmdb: SPIRITED_AWAY }, rating: 9, rated_at: '2024-03-01T00:00:00.000Z' }],
      shows: [{ ids: { trakt: showTraktId }, rating: 7, seasons: [{ number: 1, episodes: [{ number: season1[0]!.number, rating: 10 }] }] }, unknownShow],
      seasons: [{ ids: { trakt: season1Id }, rating: 6 }],
      episodes: [{ ids: { trakt: NOBODY }, rating: 1 }],
    });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ added: { movies: 1, shows: 1, seasons: 1, episodes: 1 }, not_found: { movies: [], shows: [unknownShow], seasons: [], episodes: [{ ids: { trakt: NOBODY }, rating: 1 }] } });
    const ratings = await platform(app, m.token, 'GET', '/me/ratings');
    expect(ratings.body.total).toBe(4);
    const feed = await platform(app, m.token, 'GET', '/me/sync/changes?resources=ratings');
    expect((feed.body.changes as { op: string }[]).filter((c) => c.op === 'upsert')).toHaveLength(4);

    const removed = await trakt(app, m, 'POST', '/sync/ratings/remove', {
      movies: [{ ids: { tmdb: SPIRITED_AWAY } }],
      shows: [{ ids: { trakt: showTraktId } }],
      seasons: [{ ids: { trakt: season1Id } }],
      episodes: [{ ids: { trakt: season1[0]!.id } }, { ids: { trakt: season1[1]!.id } }],
    });
    expect(removed.status).toBe(200);
    // The second episode was not rated: nothing to remove, and not "not found" either.
    expect(removed.body).toEqual({ deleted: { movies: 1, shows: 1, seasons: 1, episodes: 1 }, not_found: none });
    expect((await platform(app, m.token, 'GET', '/me/ratings')).body.total).toBe(0);
  });

  it('422 for a rating outside 1 to 10 or a missing rating', async () => {
    for (const movie of [{ ids: { tmdb: SPIRITED_AWAY }, rating: 11 }, { ids: { tmdb: SPIRITED_AWAY } }]) {
      const res = await trakt(app, alice, 'POST', '/sync/ratings', { movies: [movie] });
      expect(res.status).toBe(422);
    }
  });
});

describe('POST /trakt/sync/watchlist and /remove', () => {
  it('adds (existing when already there), a season or an episode putting its show on; removes; the list\'s figures', async () => {
    const m = await member(app, 'watcher', SCOPES);
    const res = await trakt(app, m, 'POST', '/sync/watchlist', { movies: [{ ids: { tmdb: SPIRITED_AWAY } }, { ids: { tmdb: NOBODY } }], episodes: [{ ids: { trakt: season1[0]!.id } }] });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      added: { movies: 1, shows: 0, seasons: 0, episodes: 1 },
      existing: { movies: 0, shows: 0, seasons: 0, episodes: 0 },
      not_found: { movies: [{ ids: { tmdb: NOBODY } }], shows: [], seasons: [], episodes: [] },
      list: { updated_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/), item_count: 2 },
    });
    const again = await trakt(app, m, 'POST', '/sync/watchlist', { movies: [{ ids: { trakt: movieTraktId } }], shows: [{ ids: { trakt: showTraktId } }] });
    expect(again.body).toMatchObject({ added: { movies: 0, shows: 0, seasons: 0, episodes: 0 }, existing: { movies: 1, shows: 1, seasons: 0, episodes: 0 }, list: { item_count: 2 } });
    const watchlist = await platform(app, m.token, 'GET', '/me/watchlist');
    expect(watchlist.body.itemCount).toBe(2);

    const removed = await trakt(app, m, 'POST', '/sync/watchlist/remove', { movies: [{ ids: { tmdb: SPIRITED_AWAY } }], shows: [{ ids: { trakt: NOBODY } }] });
    expect(removed.status).toBe(200);
    expect(removed.body).toEqual({
      deleted: { movies: 1, shows: 0, seasons: 0, episodes: 0 },
      not_found: { movies: [], shows: [{ ids: { trakt: NOBODY } }], seasons: [], episodes: [] },
      list: { updated_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/), item_count: 1 },
    });
  });
});

describe('POST /trakt/sync/collection and /remove', () => {
  it('collects movies and seasons in a format (existing when already there), then removes them', async () => {
    const m = await member(app, 'collector', SCOPES);
    const body = {
      movies: [{ ids: { tmdb: SPIRITED_AWAY }, media_type: 'bluray', resolution: 'uhd_4k' }, { ids: { tmdb: NOBODY } }],
      episodes: [{ ids: { trakt: season1[0]!.id }, media_type: 'dvd' }],
    };
    const res = await trakt(app, m, 'POST', '/sync/collection', body);
    expect(res.status).toBe(201);
    const zero = { movies: 0, episodes: 0 };
    expect(res.body).toEqual({ added: { movies: 1, episodes: 1 }, updated: zero, existing: zero, not_found: { movies: [{ ids: { tmdb: NOBODY } }], shows: [], seasons: [], episodes: [] } });
    const items = (await platform(app, m.token, 'GET', '/me/collection')).body.items as { format: string; season: number; type: string }[];
    expect(items.map((i) => [i.type, i.format, i.season]).sort()).toEqual([['movie', 'uhd_bluray', 0], ['show', 'dvd', 1]]);
    const again = await trakt(app, m, 'POST', '/sync/collection', body);
    expect(again.body).toMatchObject({ added: zero, existing: { movies: 1, episodes: 1 } });

    const removed = await trakt(app, m, 'POST', '/sync/collection/remove', { movies: [{ ids: { tmdb: SPIRITED_AWAY } }], seasons: [{ ids: { trakt: season1Id } }, { ids: { trakt: NOBODY } }] });
    expect(removed.status).toBe(200);
    expect(removed.body).toEqual({ deleted: { movies: 1, episodes: season1.length }, not_found: { movies: [], shows: [], seasons: [{ ids: { trakt: NOBODY } }], episodes: [] } });
    expect((await platform(app, m.token, 'GET', '/me/collection')).body.items).toEqual([]);
    const feed = await platform(app, m.token, 'GET', '/me/sync/changes?resources=collection');
    const deletes = new Set((feed.body.changes as { op: string; resourceId: string }[]).filter((c) => c.op === 'delete').map((c) => c.resourceId));
    expect(deletes.size).toBe(2);
  });
});
