// GET /me/up-next (`platform.history.upNext` over /trpc): per show the user is watching, the first aired
// regular episode after the furthest one watched, latest watch first. The exact wire shape (the show is
// the catalog's item), which shows are in it (a regular episode watched; not dropped; not movies nor
// specials only), the furthest episode by number not by time, a completed show and a show whose next
// episode has not aired leaving, deletes moving the next episode back, cursor pages bound to `limit`,
// the default page size, the plan of a page (the kept figures' index, no sort), the scope, and the same
// answers over /trpc.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, isServiceError } from '../packages/client/src/index.ts';
import { offline } from '../src/core/db/compile.ts';
import { query } from '../src/core/db/sql.ts';
import { transaction } from '../src/core/db/transaction.ts';
import { upNextPageQuery } from '../src/core/library/up-next-repository.ts';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { expectError } from './helpers/envelope.ts';
import { call } from './helpers/http.ts';
import { addSpecial } from './helpers/export-seed.ts';
import { FIRST_SHOW, member, ok, platform, seedCatalog, SPIRITED_AWAY, tokenWith, type Member } from './helpers/seed.ts';
import { sql } from './helpers/title-fixtures.ts';

const SHOWS = 24;
const show = (n: number) => FIRST_SHOW + n;
const IMAGES = 'https://image.tmdb.org/t/p';

let app: TestApp;
let alice: Member;
/** Alice's token without history:read. */
let noHistory: string;

type Item = {
  show: Record<string, unknown> & { movieDbId: number };
  nextEpisode: { season: number; episode: number; episodeTitle: string; airDate: string | null; runtimeMinutes: number | null; stillUrl: string };
  watchedEpisodes: number;
  airedEpisodes: number;
  lastWatchedAt: string;
};
type Page = { items: Item[]; nextCursor?: string };

const upNext = (token: string, query = '') => platform(app, token, 'GET', `/me/up-next${query}`);
const page = async (m: Member, query = '') => (await ok(upNext(m.token, query))) as unknown as Page;
/** Every item, following nextCursor. */
async function all(m: Member, limit = 100): Promise<Item[]> {
  const items: Item[] = [];
  let cursor: string | undefined;
  do {
    const p = await page(m, `?limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    items.push(...p.items);
    cursor = p.nextCursor;
  } while (cursor);
  return items;
}
const listed = async (m: Member) => (await all(m)).map((i) => [i.show.movieDbId, i.nextEpisode.season, i.nextEpisode.episode]);

let clock = Date.parse('2025-06-01T12:00:00.000Z');
/** A time after every one before, so the order of the list is the order of the writes. */
const later = () => new Date((clock += 6 * 3_600_000)).toISOString();

async function log(m: Member, n: number, season: number, episode?: number, watchedAt = later()): Promise<number[]> {
  const body = await ok(platform(app, m.token, 'POST', '/watch-history', { type: 'show', movieDbId: show(n), season, ...(episode === undefined ? {} : { episode }), watchedAt }));
  return (body.items as Array<{ id: number }>).map((i) => i.id);
}

const setAirDate = (n: number, from: { season: number; episode: number }, airDate: string | null) =>
  sql(
    app,
    `update episode set air_date = $4::date where title_id = (select id from title where type = 'show' and movie_db_id = $1)
       and season_number > 0 and (season_number, episode_number) >= ($2, $3)`,
    [show(n), from.season, from.episode, airDate],
  );

let users = 0;
const someone = () => member(app, `up_next_${++users}`, ['history:read', 'history:write', 'ratings:write']);

beforeAll(async () => {
  app = await startTestApp();
  await seedCatalog(app, { shows: SHOWS });
  await addSpecial(app);
  // Every episode of the test's shows aired, on dates in episode order (a test moves some into the future).
  await sql(app, `update episode set air_date = date '2020-01-01' + (season_number * 100 + episode_number * 3) where title_id in (select id from title where type = 'show')`);
  alice = await someone();
  noHistory = await tokenWith(app, alice, ['profile:read', 'history:write']);
});
afterAll(() => app?.stop());

describe('GET /me/up-next', () => {
  it('answers the exact shape: the show as the catalog item, the next episode, the counts and the latest watch', async () => {
    const m = await someone();
    await log(m, 0, 1, 1);
    const at = later();
    await log(m, 0, 1, 2, at);
    const body = await page(m);
    expect(Object.keys(body)).toEqual(['items']);
    expect(body.items).toHaveLength(1);
    const [item] = body.items;
    expect(Object.keys(item!).sort()).toEqual(['airedEpisodes', 'lastWatchedAt', 'nextEpisode', 'show', 'watchedEpisodes']);
    // The show is the catalog's own item, as the public catalog answers it.
    const name = (await sql<{ name: string }>(app, `select name from title where type = 'show' and movie_db_id = $1`, [show(0)]))[0]!.name;
    const search = await ok(call(app, `/api/public/v1/catalog/search?q=${encodeURIComponent(name)}&type=show`));
    const catalogItem = (search.items as Array<{ movieDbId: number }>).find((i) => i.movieDbId === show(0));
    expect(item!.show).toEqual(catalogItem);
    const [ep] = await sql<{ name: string; air_date: string; runtime_minutes: number | null; still_path: string }>(
      app,
      `select e.name, to_char(e.air_date, 'YYYY-MM-DD') as air_date, e.runtime_minutes, e.still_path from episode e join title t on t.id = e.title_id
       where t.type = 'show' and t.movie_db_id = $1 and e.season_number = 1 and e.episode_number = 3`,
      [show(0)],
    );
    const [aired] = await sql<{ n: number }>(
      app,
      `select count(*)::int as n from episode e join title t on t.id = e.title_id where t.type = 'show' and t.movie_db_id = $1 and e.season_number > 0`,
      [show(0)],
    );
    expect(item).toEqual({
      show: catalogItem,
      nextEpisode: {
        season: 1,
        episode: 3,
        episodeTitle: ep!.name,
        airDate: ep!.air_date,
        runtimeMinutes: ep!.runtime_minutes,
        stillUrl: ep!.still_path ? `${IMAGES}/w300${ep!.still_path}` : '',
      },
      watchedEpisodes: 2,
      airedEpisodes: aired!.n,
      lastWatchedAt: at,
    });
  });

  it('lists shows with a regular episode watched, latest watch first; not movies, specials alone or dropped shows; paused ones stay', async () => {
    const m = await someone();
    await ok(platform(app, m.token, 'POST', '/watch-history', { type: 'movie', movieDbId: SPIRITED_AWAY, watchedAt: later() }));
    await log(m, 0, 0, 1); // FIRST_SHOW's special only
    await log(m, 1, 1, 1);
    await log(m, 2, 1, 1);
    await log(m, 3, 1, 4);
    await log(m, 4, 1, 1);
    await ok(platform(app, m.token, 'PUT', `/show-status/show/${show(2)}`, { status: 'dropped' }));
    await ok(platform(app, m.token, 'PUT', `/show-status/show/${show(4)}`, { status: 'paused' }));
    expect(await listed(m)).toEqual([
      [show(4), 1, 2],
      [show(3), 1, 5],
      [show(1), 1, 2],
    ]);
    // Watching a show again moves it to the top; the special counts as its latest watch, not as progress.
    await log(m, 1, 1, 2);
    expect((await listed(m))[0]).toEqual([show(1), 1, 3]);
    await log(m, 0, 1, 1);
    const first = (await page(m)).items[0]!;
    expect([first.show.movieDbId, first.nextEpisode.episode, first.watchedEpisodes]).toEqual([show(0), 2, 1]);
  });

  it('goes on from the furthest episode by number, not the latest by time, across seasons', async () => {
    const m = await someone();
    await log(m, 5, 1, 5, '2025-01-10T20:00:00.000Z');
    await log(m, 5, 1, 2, '2025-01-11T20:00:00.000Z');
    expect(await listed(m)).toEqual([[show(5), 1, 6]]);
    // The last episode of season 1 watched: season 2 comes next (the seeded show 5 has two seasons).
    const [last] = await sql<{ n: number }>(
      app,
      `select max(episode_number)::int as n from episode e join title t on t.id = e.title_id where t.type = 'show' and t.movie_db_id = $1 and e.season_number = 1`,
      [show(5)],
    );
    await log(m, 5, 1, last!.n);
    expect(await listed(m)).toEqual([[show(5), 2, 1]]);
  });

  it('leaves out a show once complete, and a show whose next episode has not aired', async () => {
    const m = await someone();
    await log(m, 6, 1, 1);
    await log(m, 7, 1, 1);
    expect(await listed(m)).toEqual([
      [show(7), 1, 2],
      [show(6), 1, 2],
    ]);
    // Every aired episode of show 6 watched: complete, nothing next.
    await ok(platform(app, m.token, 'POST', '/watch-history', { type: 'show', movieDbId: show(6), watchedAt: later() }));
    expect(await listed(m)).toEqual([[show(7), 1, 2]]);
    // Show 7's next episode moves into the future: the first aired one after it is offered instead.
    const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
    await setAirDate(7, { season: 1, episode: 2 }, tomorrow);
    await sql(app, `update episode set air_date = date '2020-01-01' where title_id = (select id from title where type = 'show' and movie_db_id = $1) and season_number = 1 and episode_number = 3`, [show(7)]);
    expect(await listed(m)).toEqual([[show(7), 1, 3]]);
    // Nothing after the furthest episode aired: the show leaves until it does.
    await setAirDate(7, { season: 1, episode: 2 }, tomorrow);
    expect(await listed(m)).toEqual([]);
    // An episode without an air date counts as aired.
    await setAirDate(7, { season: 1, episode: 2 }, null);
    expect(await listed(m)).toEqual([[show(7), 1, 2]]);
    await sql(app, `update episode set air_date = date '2020-01-01' + (season_number * 100 + episode_number * 3) where title_id = (select id from title where type = 'show' and movie_db_id = $1)`, [show(7)]);
  });

  it('moves the next episode back when entries are deleted, and drops the show with its last entry', async () => {
    const m = await someone();
    const [e1] = await log(m, 8, 1, 1);
    const [e3] = await log(m, 8, 1, 3);
    const [again] = await log(m, 8, 1, 3);
    expect(await listed(m)).toEqual([[show(8), 1, 4]]);
    // One of two watches of the furthest episode gone: still watched.
    await ok(platform(app, m.token, 'DELETE', `/watch-history/${again}`));
    expect(await listed(m)).toEqual([[show(8), 1, 4]]);
    await ok(platform(app, m.token, 'DELETE', `/watch-history/${e3}`));
    const [item] = (await page(m)).items;
    expect([item!.nextEpisode.season, item!.nextEpisode.episode, item!.watchedEpisodes]).toEqual([1, 2, 1]);
    await ok(platform(app, m.token, 'DELETE', `/watch-history/${e1}`));
    expect(await listed(m)).toEqual([]);
  });

  it('pages with cursors bound to limit; 20 by default, at most 100', async () => {
    const m = await someone();
    for (let n = 0; n < 22; n++) await log(m, n, 1, 1);
    const everything = await all(m);
    expect(everything.map((i) => i.show.movieDbId)).toEqual(Array.from({ length: 22 }, (_, k) => show(21 - k)));
    const first = await page(m);
    expect(first.items).toHaveLength(20);
    expect(first.items).toEqual(everything.slice(0, 20));
    expect(typeof first.nextCursor).toBe('string');
    expect(first.nextCursor).toMatch(/^[A-Za-z0-9_-]+$/);
    const pages: Item[][] = [];
    let cursor: string | undefined;
    do {
      const p = await page(m, `?limit=5${cursor ? `&cursor=${cursor}` : ''}`);
      pages.push(p.items);
      cursor = p.nextCursor;
      if (p.items.length < 5) expect(cursor).toBeUndefined();
    } while (cursor);
    expect(pages.map((p) => p.length)).toEqual([5, 5, 5, 5, 2]);
    expect(pages.flat()).toEqual(everything);
    // A show watched while paging moves to the top: the pages after the cursor neither repeat nor lose the others.
    const p1 = await page(m, '?limit=10');
    await log(m, 21 - 12, 1, 2);
    const p2 = await page(m, `?limit=10&cursor=${p1.nextCursor}`);
    const rest = everything.slice(10).map((i) => i.show.movieDbId).filter((id) => id !== show(9));
    expect(p2.items.map((i) => i.show.movieDbId)).toEqual(rest.slice(0, 10));
    expect((await page(m, `?limit=10&cursor=${p2.nextCursor}`)).items.map((i) => i.show.movieDbId)).toEqual(rest.slice(10));

    expectError(await upNext(m.token, `?limit=6&cursor=${p1.nextCursor}`), 400, 'invalid_request');
    expectError(await upNext(m.token, '?cursor=not-a-cursor'), 400, 'invalid_request');
    expectError(await upNext(m.token, `?cursor=${Buffer.from(JSON.stringify({ p: ['x', '1'], h: 'y' })).toString('base64url')}`), 400, 'invalid_request');
    expectError(await upNext(m.token, '?limit=101'), 400, 'invalid_request');
    expectError(await upNext(m.token, '?limit=0'), 400, 'invalid_request');
    expectError(await upNext(m.token, '?type=show'), 400, 'invalid_request');
  });

  it('reads a page through the index in its order, each show with its one next episode: no sort, no scan of the history', async () => {
    const { sql: text, parameters } = upNextPageQuery(offline, alice.userId, { after: ['2025-06-01T12:00:00.000000Z', '1'], rows: 21 }).compile();
    const plan = await transaction(app.db.orm.em.fork(), async (tx) => {
      await query(tx, { text: 'set local enable_seqscan = off', params: [] });
      return query<{ 'QUERY PLAN': string }>(tx, { text: `explain ${text}`, params: [...parameters] });
    });
    const lines = plan.map((r) => r['QUERY PLAN']).join('\n');
    expect(lines).toMatch(/Index (Only )?Scan using user_title_figures_up_next/);
    expect(lines).toMatch(/Index Scan using episode_title_number_unique/);
    expect(lines).not.toMatch(/\bSort\b|watch_history/);
  });

  it('needs history:read', async () => {
    expectError(await upNext(noHistory), 403, 'insufficient_scope', { required_scope: 'history:read' });
    const err = await createClient({ baseUrl: app.url, token: noHistory }).platform.history.upNext.query({}).catch((e: unknown) => e);
    expect(isServiceError(err) && err.data).toMatchObject({ error: 'insufficient_scope', httpStatus: 403 });
  });

  it('answers the same over /trpc as platform.history.upNext, cursor included', async () => {
    const m = await someone();
    for (let n = 10; n < 15; n++) await log(m, n, 1, 2);
    const client = createClient({ baseUrl: app.url, token: m.token });
    const rest1 = await page(m, '?limit=3');
    const rpc1 = await client.platform.history.upNext.query({ limit: 3 });
    expect(rpc1).toEqual(rest1);
    const rpc2 = await client.platform.history.upNext.query({ limit: 3, cursor: rpc1.nextCursor });
    expect(rpc2).toEqual(await page(m, `?limit=3&cursor=${rest1.nextCursor}`));
    expect(rpc2.nextCursor).toBeUndefined();
    const err = await client.platform.history.upNext.query({ limit: 4, cursor: rpc1.nextCursor }).catch((e: unknown) => e);
    expect(isServiceError(err) && err.data).toMatchObject({ error: 'invalid_request', httpStatus: 400 });
  });
});
