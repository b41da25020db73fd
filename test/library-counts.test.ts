// The counts of the favourites and statuses pages are kept on write (user_library_count), and the pages
// read their rows from either end of the list. After each change made through the API (set, set again,
// change, clear, unfavourite, the automatic status change a watch makes), every filter's `counts` and
// `total` equal the rows counted here, its items are the rows in the list's order, and the kept counts
// equal the ones rebuilt from the rows. Then pages of a list are read one by one, from both ends.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { query } from '../src/core/db/sql.ts';
import { transaction } from '../src/core/db/transaction.ts';
import { rebuildLibraryCounts } from '../src/core/figures/library-counts.ts';
import { KINDS, SHOW_STATUSES, type Kind } from '../src/core/library/library-items.ts';
import { lockTitleStates } from '../src/core/library/title-state-write.ts';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { FIRST_SHOW, member, ok, platform, seedCatalog, SPIRITED_AWAY, type Member } from './helpers/seed.ts';

let app: TestApp;
const em = () => app.db.orm.em.fork();
const SCOPES = ['history:read', 'history:write', 'ratings:read', 'ratings:write'];
/** Shows with at least two aired regular episodes (a whole-show watch completes them), by movie_db_id. */
let shows: number[];
/** Movies of the fixture (four), and every show but the anime, by movie_db_id. */
let movies: number[];
let allShows: number[];
const ANIME = { type: 'show', movieDbId: FIRST_SHOW + 2 } as const;

beforeAll(async () => {
  app = await startTestApp();
  await seedCatalog(app, { shows: 8 });
  // The test catalog has no anime: the third synthetic show plays one (before any user holds it).
  await query(em(), { text: `update title set is_anime = true, category = 'anime' where type = 'show' and movie_db_id = $1`, params: [ANIME.movieDbId] });
  shows = (
    await query<{ movie_db_id: number }>(em(), {
      text: `select t.movie_db_id from title t join episode e on e.title_id = t.id
        where t.type = 'show' and t.category = 'show' and e.season_number > 0 and e.air_date <= current_date - 2
        group by t.movie_db_id having count(*) >= 2 order by t.movie_db_id limit 2`,
      params: [],
    })
  ).map((r) => r.movie_db_id);
  const ids = (type: string) => query<{ movie_db_id: number }>(em(), { text: `select movie_db_id from title where category = $1 order by movie_db_id`, params: [type] });
  movies = (await ids('movie')).map((r) => r.movie_db_id);
  allShows = (await ids('show')).map((r) => r.movie_db_id);
  expect(shows).toHaveLength(2);
  expect(movies.length).toBeGreaterThanOrEqual(4);
});
afterAll(() => app?.stop());

type Filters = { type?: Kind; scope?: 'title' | 'series'; status?: (typeof SHOW_STATUSES)[number] };
type ListRow = { id: string; category: Kind; scope: 'title' | 'series'; status: string | null };
const LISTS = {
  favourites: { path: '/me/favourites', where: 's.is_favourite', order: 's.favourited_at desc, s.id desc' },
  statuses: { path: '/me/show-statuses', where: 's.show_status is not null', order: 's.show_status_at desc, s.id desc' },
} as const;
type List = keyof typeof LISTS;

/** The rows of a list, counted and ordered here from user_title_state. */
const listRows = (m: Member, list: List) =>
  query<ListRow>(em(), {
    text: `select s.id::text as id, t.category, case t.type when 'movie' then 'title' else 'series' end as scope, s.show_status as status
      from user_title_state s join title t on t.id = s.title_id
      where s.user_id = $1 and ${LISTS[list].where} order by ${LISTS[list].order}`,
    params: [m.userId],
  });

const FILTERS: Record<List, Filters[]> = {
  favourites: [{}, ...KINDS.map((type) => ({ type })), { scope: 'title' }, { scope: 'series' }, { type: 'anime', scope: 'series' }, { type: 'movie', scope: 'series' }],
  statuses: [{}, ...KINDS.map((type) => ({ type })), ...SHOW_STATUSES.map((status) => ({ status })), { type: 'show', status: 'completed' }, { type: 'movie', status: 'planned' }],
};

const pagePath = (list: List, f: Filters, page = 1, pageSize = 100) => `${LISTS[list].path}?${new URLSearchParams({ ...f, page: String(page), pageSize: String(pageSize) }).toString()}`;

/** The kept counts of the user, in a stable order. */
const keptCounts = (m: Member) =>
  query<{ list: string; category: string; scope: string; status: string; n: number }>(em(), {
    text: `select list, category, scope, status, n from user_library_count where user_id = $1 order by list, category, scope, status`,
    params: [m.userId],
  });

/** Every filter of both lists answers the counts, total and items of the rows; the kept counts are the rebuilt ones. */
async function expectCountsOfRows(m: Member): Promise<void> {
  for (const list of ['favourites', 'statuses'] as const) {
    const rows = await listRows(m, list);
    for (const f of FILTERS[list]) {
      const underOthers = rows.filter((r) => (!f.scope || r.scope === f.scope) && (!f.status || r.status === f.status));
      const counts = Object.fromEntries(KINDS.map((kind) => [kind, underOthers.filter((r) => r.category === kind).length]));
      const matching = underOthers.filter((r) => !f.type || r.category === f.type);
      const body = await ok(platform(app, m.token, 'GET', pagePath(list, f)));
      expect({ list, f, counts: body.counts, total: body.total }).toEqual({ list, f, counts, total: matching.length });
      expect((body.items as { id: number }[]).map((i) => String(i.id))).toEqual(matching.map((r) => r.id));
    }
  }
  const kept = await keptCounts(m);
  expect(kept.every((c) => c.n > 0)).toBe(true);
  await transaction(em(), async (tx) => {
    await lockTitleStates(tx, m.userId);
    await rebuildLibraryCounts(tx, m.userId);
  });
  expect(await keptCounts(m)).toEqual(kept);
}

const favourite = (m: Member, type: 'movie' | 'show', movieDbId: number) => ok(platform(app, m.token, 'POST', '/favourites', { type, movieDbId }));
const unfavourite = (m: Member, type: 'movie' | 'show', movieDbId: number) => ok(platform(app, m.token, 'DELETE', `/favourites/${type}/${movieDbId}`));
const setStatus = (m: Member, type: 'movie' | 'show', movieDbId: number, status: string) => ok(platform(app, m.token, 'PUT', `/show-status/${type}/${movieDbId}`, { status }));
const clearStatus = (m: Member, type: 'movie' | 'show', movieDbId: number) => ok(platform(app, m.token, 'DELETE', `/show-status/${type}/${movieDbId}`));
const watch = (m: Member, body: Record<string, unknown>) => ok(platform(app, m.token, 'POST', '/watch-history', body));

describe('the favourites and statuses counts follow every write', () => {
  let m: Member;
  beforeAll(async () => {
    m = await member(app, 'counter', SCOPES);
  });

  it('no favourites, no statuses: every count 0', async () => {
    await expectCountsOfRows(m);
    expect(await keptCounts(m)).toEqual([]);
  });

  it('favourites: set, set again (counted once), on a movie, a show and an anime', async () => {
    await favourite(m, 'movie', SPIRITED_AWAY);
    await expectCountsOfRows(m);
    await favourite(m, 'movie', SPIRITED_AWAY);
    await expectCountsOfRows(m);
    await favourite(m, 'show', shows[0]!);
    await favourite(m, ANIME.type, ANIME.movieDbId);
    await expectCountsOfRows(m);
    expect((await ok(platform(app, m.token, 'GET', '/me/favourites'))).counts).toEqual({ movie: 1, show: 1, anime: 1 });
  });

  it('statuses: set, set again, change (one count moves), on titles with and without a favourite', async () => {
    await setStatus(m, 'movie', SPIRITED_AWAY, 'planned');
    await setStatus(m, 'show', shows[0]!, 'watching');
    await setStatus(m, 'show', shows[1]!, 'watching');
    await expectCountsOfRows(m);
    await setStatus(m, 'show', shows[1]!, 'watching');
    await expectCountsOfRows(m);
    await setStatus(m, 'show', shows[1]!, 'paused');
    await expectCountsOfRows(m);
    await setStatus(m, 'movie', SPIRITED_AWAY, 'completed');
    await setStatus(m, ANIME.type, ANIME.movieDbId, 'dropped');
    await expectCountsOfRows(m);
  });

  it('clear a status and unfavourite (the row dropped when it holds neither), each twice', async () => {
    await clearStatus(m, 'movie', SPIRITED_AWAY);
    await expectCountsOfRows(m);
    await clearStatus(m, 'movie', SPIRITED_AWAY);
    await expectCountsOfRows(m);
    await unfavourite(m, 'movie', SPIRITED_AWAY);
    await expectCountsOfRows(m);
    await unfavourite(m, 'movie', SPIRITED_AWAY);
    await unfavourite(m, 'show', shows[1]!);
    await expectCountsOfRows(m);
    await clearStatus(m, ANIME.type, ANIME.movieDbId);
    await expectCountsOfRows(m);
  });

  it('watches move statuses automatically: a whole show completes it, a first episode starts one, a planned movie completes', async () => {
    await setStatus(m, 'show', shows[0]!, 'watching');
    await watch(m, { type: 'show', movieDbId: shows[0]! });
    expect((await ok(platform(app, m.token, 'GET', '/me/show-statuses?status=completed'))).items).toMatchObject([{ movieDbId: shows[0]!, showStatus: 'completed' }]);
    await expectCountsOfRows(m);
    await clearStatus(m, 'show', shows[1]!);
    await watch(m, { type: 'show', movieDbId: shows[1]!, season: 1, episode: 1 });
    expect((await ok(platform(app, m.token, 'GET', '/me/show-statuses?status=watching'))).items).toMatchObject([{ movieDbId: shows[1]!, showStatus: 'watching' }]);
    await expectCountsOfRows(m);
    await setStatus(m, 'movie', movies[1]!, 'planned');
    await watch(m, { type: 'movie', movieDbId: movies[1]! });
    await expectCountsOfRows(m);
    expect((await ok(platform(app, m.token, 'GET', '/me/show-statuses'))).counts).toEqual({ movie: 1, show: 2, anime: 0 });
  });
});

describe('pages read from either end of the list', () => {
  it('every page, under each filter, is its part of the list in order; past the end no items and the counts', async () => {
    const m = await member(app, 'pager', SCOPES);
    for (const [i, id] of movies.entries()) {
      await favourite(m, 'movie', id);
      await setStatus(m, 'movie', id, i % 3 === 0 ? 'completed' : 'planned');
    }
    for (const [i, id] of [...allShows, ANIME.movieDbId].entries()) {
      await favourite(m, 'show', id);
      await setStatus(m, 'show', id, i % 2 === 0 ? 'watching' : 'completed');
    }
    for (const list of ['favourites', 'statuses'] as const) {
      const rows = await listRows(m, list);
      for (const f of FILTERS[list]) {
        const matching = rows.filter((r) => (!f.type || r.category === f.type) && (!f.scope || r.scope === f.scope) && (!f.status || r.status === f.status));
        for (const pageSize of [1, 2, 3, 5]) {
          const pages = Math.ceil(matching.length / pageSize) + 1;
          for (let page = 1; page <= pages; page++) {
            const body = await ok(platform(app, m.token, 'GET', pagePath(list, f, page, pageSize)));
            const part = matching.slice((page - 1) * pageSize, page * pageSize);
            expect({ list, f, pageSize, page, ids: (body.items as { id: number }[]).map((i) => String(i.id)), total: body.total, hasMore: body.hasMore }).toEqual({
              list,
              f,
              pageSize,
              page,
              ids: part.map((r) => r.id),
              total: matching.length,
              hasMore: page * pageSize < matching.length,
            });
          }
        }
      }
    }
  });
});

describe('rebuildLibraryCounts', () => {
  it('counts the ratings from their rows too: by category and scope', async () => {
    const m = await member(app, 'rebuilder', SCOPES);
    await ok(platform(app, m.token, 'POST', '/ratings', { type: 'movie', movieDbId: movies[0]!, rating: 8 }));
    await ok(platform(app, m.token, 'POST', '/ratings', { type: 'show', movieDbId: shows[0]!, rating: 7 }));
    await ok(platform(app, m.token, 'POST', '/ratings', { type: 'show', movieDbId: shows[0]!, season: 1, rating: 6 }));
    await ok(platform(app, m.token, 'POST', '/ratings', { type: 'show', movieDbId: shows[0]!, season: 1, episode: 1, rating: 5 }));
    await ok(platform(app, m.token, 'POST', '/ratings', { type: 'show', movieDbId: shows[0]!, season: 1, episode: 2, rating: 5 }));
    await ok(platform(app, m.token, 'POST', '/ratings', { ...ANIME, rating: 9 }));
    await favourite(m, 'show', ANIME.movieDbId);
    await setStatus(m, 'show', ANIME.movieDbId, 'paused');
    await transaction(em(), async (tx) => {
      await lockTitleStates(tx, m.userId);
      await rebuildLibraryCounts(tx, m.userId);
    });
    expect(await keptCounts(m)).toEqual([
      { list: 'favourites', category: 'anime', scope: 'series', status: '', n: 1 },
      { list: 'ratings', category: 'anime', scope: 'series', status: '', n: 1 },
      { list: 'ratings', category: 'movie', scope: 'title', status: '', n: 1 },
      { list: 'ratings', category: 'show', scope: 'episode', status: '', n: 2 },
      { list: 'ratings', category: 'show', scope: 'season', status: '', n: 1 },
      { list: 'ratings', category: 'show', scope: 'series', status: '', n: 1 },
      { list: 'statuses', category: 'anime', scope: 'series', status: 'paused', n: 1 },
    ]);
  });
});
