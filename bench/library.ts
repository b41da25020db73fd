// The user's library under load (services mode, 16 connections): the title detail with full user state
// (every read scope) of a user with 5,000 history entries, 500 ratings, 20 lists, favourites and show
// statuses, over titles drawn uniformly from the whole catalog (DRAWN_TITLES distinct ones, each viewed
// once: cold; then again: warm) and over the titles that user has state on; and `GET /me/history`
// pages. Requests/s, p50, p99 through the whole service, and the same SQL through a bare `pg` pool in
// the same run as the baseline.
//
// The baseline runs, for each request, exactly the statements the service runs for it, in the same
// order: the bearer token's verification (oauth/bearer.ts, one statement), then the title detail's one
// statement (core/titles/repository.ts: the title, season stats, recommendations, community rating,
// featured lists and the user's interaction, watches, lists and collection) or the history page. The
// title detail has no cache in the service: "cold" is each title's first view in the run (the
// baseline's cold pass draws its own titles, so neither warms the other's). The older baseline (the title statement alone, without the lists, collection and featured lists
// the service read in three more statements until they were folded into it) is printed too, for
// comparison with earlier runs. GET /me is measured too: the cost of any platform request on this machine.
// The service names the token check, the title statement and the history page (core/db/prepared.ts);
// the baseline names them too. With wrk installed, the service is also loaded by wrk, whose share of
// the two shared cores is far smaller than autocannon's.
// Targets: p99 at most 25 ms; throughput at least half the bare baseline's.
import { createUser } from '../src/core/accounts/service.ts';
import { createApp } from '../src/core/apps/service.ts';
import { query } from '../src/core/db/sql.ts';
import { openDatabase, migrate, type Database } from '../src/core/db/orm.ts';
import { transaction } from '../src/core/db/transaction.ts';
import { logWatches, type WatchInput } from '../src/core/library/history-write.ts';
import { setRating } from '../src/core/library/ratings-write.ts';
import { lockTitleStates } from '../src/core/library/title-state-write.ts';
import { rebuildLibraryCounts } from '../src/core/figures/library-counts.ts';
import { encodeCursor } from '../src/core/paging/cursor.ts';
import { utcDay } from '../src/core/titles/user-state.ts';
import { bareBaseline, bareOnce, benchDatabaseUrl, type BareRequest, type Figures, formatRow, hasWrk, loadPaths, loadPathsOnce, loadPathsWrk, prepareCatalog, recountListsOf, startService, tempDataDir, serviceVsBare, tokenIssuer } from './lib.ts';
import { atLeast, atMost, section, type Growth, type Section } from './report.ts';
import { historyPageStatement, titleDetailStatement, tokenStatement } from './statements.ts';

const CONNECTIONS = 16;
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const SCOPES = 'profile:read ratings:read history:read lists:read collection:read';
const HISTORY = 5000;
/** The history size of the cost-growth run: 10x HISTORY. */
const HISTORY_LARGE = 50_000;
const RATINGS = 500;
const LISTS = 20;
const LIST_ITEMS = 50;
const DETAIL_TITLES = 60;
/** Titles drawn from the whole catalog for the cold and warm title-detail runs (twice: service, baseline). */
const DRAWN_TITLES = 6000;
const HISTORY_PAGE = 50;
const HISTORY_PAGES = 20;
const DAY_MS = 86_400_000;

type TitleRow = { id: string; type: 'movie' | 'show'; movie_db_id: number };
type Seeded = { userId: string; clientId: string; token: string; detailTitles: TitleRow[] };

/** A user with a heavy library, written through the core write paths (lists and title state by SQL). */
export async function seedUser(db: Database, databaseUrl: string): Promise<Seeded> {
  const em = db.orm.em.fork();
  const suffix = Math.random().toString(36).slice(2, 8);
  const user = await createUser(em, { username: `bench_lib_${suffix}`, password: 'bench-password-1' });
  const app = await createApp(em, { name: 'Library bench', redirectUris: ['http://127.0.0.1:1/cb'], scopes: SCOPES.split(' '), confidential: false, official: false });
  const token = await (await tokenIssuer(db, databaseUrl))(user.id, app.client_id, SCOPES);

  // 4,000 episode watches over the most popular shows' first episodes, and 1,000 movie watches (two each).
  const episodes = await query<{ id: string; title_id: string; season_number: number; episode_number: number }>(em, {
    text: `select e.id, e.title_id, e.season_number, e.episode_number from (
        select t.id from title t where t.type = 'show' and exists (select 1 from episode x where x.title_id = t.id) order by t.popularity desc, t.id limit 120) s
      cross join lateral (select * from episode e where e.title_id = s.id order by e.season_number, e.episode_number limit 40) e
      order by e.title_id, e.season_number, e.episode_number limit $1`,
    params: [HISTORY - 1000],
  });
  const movies = await query<TitleRow>(em, { text: `select id, type, movie_db_id from title where type = 'movie' order by popularity desc, id limit 500`, params: [] });
  const start = Date.now() - 3 * 365 * DAY_MS;
  const watches: WatchInput[] = [
    ...episodes.map((e, i) => ({ titleId: String(e.title_id), episodeId: String(e.id), season: e.season_number, episode: e.episode_number, watchedAt: new Date(start + i * 3 * 3_600_000) })),
    ...movies.flatMap((m, i) => [0, 400].map((days) => ({ titleId: String(m.id), episodeId: null, season: null, episode: null, watchedAt: new Date(start + (i + days) * DAY_MS + 7_200_000) }))),
  ].map((w) => ({ ...w, runtimeMinutes: null, source: 'api' as const, clientId: null }));
  for (let i = 0; i < watches.length; i += 500) await transaction(em, (tx) => logWatches(tx, user.id, watches.slice(i, i + 500)));

  // 500 ratings: 380 movies (title), 120 shows (series).
  const shows = [...new Set(episodes.map((e) => String(e.title_id)))];
  await transaction(em, async (tx) => {
    const targets = [...movies.slice(0, RATINGS - shows.length).map((m) => ({ titleId: String(m.id), scope: 'title' as const })), ...shows.map((id) => ({ titleId: id, scope: 'series' as const }))];
    for (const [i, t] of targets.entries()) await setRating(tx, user.id, { ...t, season: null, episode: null }, 1 + (i % 10));
  });

  // Favourites on a third of the shows (statuses came with the watches: automatic transitions).
  await query(em, {
    text: `insert into user_title_state (user_id, title_id, is_favourite, favourited_at, show_status, show_status_set_by, show_status_at)
      select $1, x.id, true, now(), 'watching', 'user', now()
      from unnest($2::bigint[]) with ordinality as x(id, n) where x.n % 3 = 0
      on conflict (user_id, title_id) do update set is_favourite = true, favourited_at = now()`,
    params: [user.id, shows],
  });
  // Those favourites came in by SQL, past the writes that keep the lists' counts: counted from the rows.
  await transaction(em, async (tx) => {
    await lockTitleStates(tx, user.id);
    await rebuildLibraryCounts(tx, user.id);
  });

  // 20 lists of 50 items each, over the watched titles (SQL: the lists module's tables).
  const listed = [...movies.map((m) => String(m.id)), ...shows];
  await query(em, {
    text: `with made as (
        insert into list (owner_id, name, is_public, is_watchlist) select $1, 'Bench list ' || n, n % 2 = 0, n = 1 from generate_series(1, $2) n
        returning id), l as (select id, row_number() over (order by id) as n from made)
      insert into list_item (list_id, title_id, position)
      select l.id, ($3::bigint[])[1 + ((l.n * 37 + k * 11) % cardinality($3::bigint[]))], k from l cross join generate_series(1, $4) k
      on conflict do nothing`,
    params: [user.id, LISTS, listed, LIST_ITEMS],
  });
  await recountListsOf(em, user.id);
  await query(em, { text: 'analyze watch_history; analyze user_rating; analyze user_title_state; analyze list; analyze list_item', params: [] });

  const detailTitles = await query<TitleRow>(em, {
    text: `select id, type, movie_db_id from title where id = any($1::bigint[]) order by id`,
    params: [[...shows.slice(0, DETAIL_TITLES / 2), ...movies.slice(0, DETAIL_TITLES / 2).map((m) => String(m.id))]],
  });
  return { userId: user.id, clientId: app.client_id, token, detailTitles };
}

/** `count` distinct titles drawn uniformly from the whole catalog, in random order (a new draw each run). */
async function drawTitles(db: Database, count: number): Promise<TitleRow[]> {
  return query<TitleRow>(db.orm.em.fork(), { text: 'select id, type, movie_db_id from title order by random() limit $1', params: [count] });
}

/** The /me/history page paths (first page, then each page's cursor) and the same statements for pg. */
async function historyPages(url: string, token: string, userId: string): Promise<{ paths: string[]; statements: BareRequest[] }> {
  const paths: string[] = [];
  const statements: BareRequest[] = [];
  let cursor: string | undefined;
  for (let i = 0; i < HISTORY_PAGES; i++) {
    const path = `/api/platform/v1/me/history?limit=${HISTORY_PAGE}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
    statements.push([tokenStatement(token), historyPageStatement(userId, HISTORY_PAGE, cursor)]);
    paths.push(path);
    const res = await fetch(`${url}${path}`, { headers: { authorization: `Bearer ${token}` } });
    if (!res.ok) throw new Error(`GET /me/history answered ${res.status}`);
    cursor = ((await res.json()) as { nextCursor?: string }).nextCursor;
    if (!cursor) break;
  }
  return { paths, statements };
}

/**
 * HISTORY_PAGES page paths spread evenly over the user's whole history (the first page, then cursors at
 * every n-th entry), so the pages cost what paging anywhere in the history costs.
 */
async function spreadHistoryPaths(db: Database, userId: string): Promise<string[]> {
  const em = db.orm.em.fork();
  const [{ n } = { n: 0 }] = await query<{ n: number }>(em, { text: 'select count(*)::int as n from watch_history where user_id = $1', params: [userId] });
  const positions = await query<{ position_at: string; id: string }>(em, {
    text: `select position_at, id from (
        select to_char(watched_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as position_at, id::text as id,
          row_number() over (order by watched_at desc, id desc) as n
        from watch_history where user_id = $1) x
      where x.n % $2 = 0 order by x.n limit $3`,
    params: [userId, Math.max(1, Math.floor(n / HISTORY_PAGES)), HISTORY_PAGES - 1],
  });
  const base = `/api/platform/v1/me/history?limit=${HISTORY_PAGE}`;
  return [base, ...positions.map((p) => `${base}&cursor=${encodeURIComponent(encodeCursor([p.position_at, p.id], {}))}`)];
}

/** `count` more movie watches for the user, interleaved over the same three years (SQL, for reading only). */
async function addHistory(db: Database, userId: string, count: number): Promise<void> {
  const em = db.orm.em.fork();
  await query(em, {
    text: `insert into watch_history (user_id, title_id, watched_at, source)
      select $1, m.ids[1 + n % cardinality(m.ids)], now() - interval '3 years' + n * interval '35 minutes' + interval '17 seconds', 'api'
      from generate_series(1, $2) n, (select array_agg(id) as ids from (select id from title where type = 'movie' order by popularity desc, id limit 500) t) m`,
    params: [userId, count],
  });
  await query(em, { text: 'analyze watch_history', params: [] });
}

export type LibraryBench = {
  titles: number;
  /** GET /me in the same run: what any platform request costs here (bearer check, pipeline), for scale. */
  floor: Figures;
  /** Title detail over DRAWN_TITLES titles of the whole catalog, each viewed once (service and baseline draw their own). */
  cold: { service: Figures; bare: Figures; ratio: number };
  results: Array<{ case: string; service: Figures; bare: Figures; ratio: number }>;
  /** The same cases' service figures with wrk as the load generator (when installed): less of the shared CPU. */
  wrk: Array<{ case: string; service: Figures; ratio: number }>;
  /** GET /me with wrk (null: wrk not installed). */
  floorWrk: Figures | null;
  /** The older title baseline: the title statement alone, without verification, lists, collection, featured lists. */
  titleStatementAlone: Figures;
  /** History pages spread over the whole history at HISTORY and at HISTORY_LARGE entries. */
  growth: Growth[];
  skipped: string[];
};

export async function benchLibrary(): Promise<LibraryBench> {
  const databaseUrl = benchDatabaseUrl();
  const titles = await prepareCatalog({ databaseUrl, dataDir: tempDataDir() });
  const db = await openDatabase({ databaseUrl, dataDir: '/nonexistent' });
  let seeded: Seeded;
  try {
    await migrate(db.orm);
    // Users of runs that died before cleaning up.
    await query(db.orm.em.fork(), { text: `delete from app_user where username like 'bench\\_lib\\_%'`, params: [] });
    seeded = await seedUser(db, databaseUrl);
  } catch (err) {
    await db.close();
    throw err;
  }
  const results: LibraryBench['results'] = [];
  const wrk: LibraryBench['wrk'] = [];
  let floorWrk: Figures | null = null;
  const skipped: string[] = [];
  const growth: Growth[] = [];
  let floor: Figures;
  let cold: LibraryBench['cold'];
  let titleStatementAlone: Figures;
  const service = await startService({ DATABASE_URL: databaseUrl });
  try {
    floor = await loadPaths(service.url, seeded.token, ['/api/platform/v1/me'], CONNECTIONS, SECONDS);
    const u = seeded.userId;
    const detailSql = (t: TitleRow, full: boolean) =>
      titleDetailStatement(
        {
          type: t.type,
          movieDbId: t.movie_db_id,
          scope: t.type === 'movie' ? 'title' : 'series',
          today: utcDay(),
          state: full ? { historyOf: u, ratingsOf: u, listsOf: u, collectionOf: u } : { historyOf: u, ratingsOf: u },
        },
        { featured: full },
      );
    titleStatementAlone = await bareBaseline(databaseUrl, seeded.detailTitles.map((t) => detailSql(t, false)), CONNECTIONS, SECONDS);
    const drawn = await drawTitles(db, DRAWN_TITLES * 2);
    const [served, baseline] = [drawn.slice(0, DRAWN_TITLES), drawn.slice(DRAWN_TITLES)];
    const detailPath = (t: TitleRow) => `/api/platform/v1/title/${t.type}/${t.movie_db_id}`;
    const coldService = await loadPathsOnce(service.url, seeded.token, served.map(detailPath), CONNECTIONS);
    const coldBare = await bareOnce(databaseUrl, baseline.map((t) => [tokenStatement(seeded.token), detailSql(t, true)]), CONNECTIONS);
    cold = { service: coldService, bare: coldBare, ratio: coldService.requestsPerSecond / coldBare.requestsPerSecond };
    const cases: Array<{ name: string; paths: string[]; statements: BareRequest[] }> = [
      {
        name: `title detail, ${DRAWN_TITLES.toLocaleString('en')} titles of the whole catalog, warm`,
        paths: served.map(detailPath),
        statements: served.map((t) => [tokenStatement(seeded.token), detailSql(t, true)]),
      },
      {
        name: 'title detail, full user state',
        paths: seeded.detailTitles.map((t) => `/api/platform/v1/title/${t.type}/${t.movie_db_id}`),
        statements: seeded.detailTitles.map((t) => [tokenStatement(seeded.token), detailSql(t, true)]),
      },
    ];
    const probe = await fetch(`${service.url}/api/platform/v1/me/history?limit=1`, { headers: { authorization: `Bearer ${seeded.token}` } });
    if (probe.status === 404) skipped.push('GET /me/history (not built yet)');
    else cases.push({ name: `GET /me/history pages of ${HISTORY_PAGE}`, ...(await historyPages(service.url, seeded.token, seeded.userId)) });
    results.push(...(await serviceVsBare(service.url, databaseUrl, seeded.token, cases, CONNECTIONS, SECONDS)));
    if (hasWrk()) {
      floorWrk = await loadPathsWrk(service.url, seeded.token, ['/api/platform/v1/me'], CONNECTIONS, SECONDS);
      for (const [i, c] of cases.entries()) {
        const figures = await loadPathsWrk(service.url, seeded.token, c.paths, CONNECTIONS, SECONDS);
        wrk.push({ case: c.name, service: figures, ratio: figures.requestsPerSecond / results[i]!.bare.requestsPerSecond });
      }
    } else skipped.push('the wrk runs (wrk is not installed: apt-get install wrk)');
    if (probe.status !== 404) {
      const small = await loadPaths(service.url, seeded.token, await spreadHistoryPaths(db, seeded.userId), CONNECTIONS, SECONDS);
      process.stderr.write(`adding ${HISTORY_LARGE - HISTORY} history entries...\n`);
      await addHistory(db, seeded.userId, HISTORY_LARGE - HISTORY);
      const large = await loadPaths(service.url, seeded.token, await spreadHistoryPaths(db, seeded.userId), CONNECTIONS, SECONDS);
      growth.push({ endpoint: `GET /me/history, pages of ${HISTORY_PAGE} spread over the history`, unit: 'req/s', small: { size: HISTORY, figures: small }, large: { size: HISTORY_LARGE, figures: large } });
    }
  } finally {
    await service.stop();
    // The bench user goes (its history, ratings, lists and state cascade), so runs do not pile up.
    await query(db.orm.em.fork(), { text: 'delete from app_user where id = $1', params: [seeded.userId] });
    await db.close();
  }
  return { titles, floor, cold, results, wrk, floorWrk, titleStatementAlone, growth, skipped };
}

export function printLibrary(b: LibraryBench): void {
  console.log(`\nlibrary (services mode, ${b.titles} titles; user with ${HISTORY} history entries, ${RATINGS} ratings, ${LISTS} lists; ${CONNECTIONS} connections, ${SECONDS} s each)`);
  console.log(formatRow('  GET /me (any platform request, for scale)', b.floor));
  console.log(formatRow(`  title detail, ${DRAWN_TITLES} titles of the whole catalog, cold: service`, b.cold.service));
  console.log(formatRow(`  title detail, ${DRAWN_TITLES} other titles, cold: same SQL through bare pg`, b.cold.bare));
  console.log(`  title detail, cold: service / bare throughput ratio ${b.cold.ratio.toFixed(2)}`);
  for (const r of b.results) {
    console.log(formatRow(`  ${r.case}: service`, r.service));
    console.log(formatRow(`  ${r.case}: same SQL through bare pg`, r.bare));
    console.log(`  ${r.case}: service / bare throughput ratio ${r.ratio.toFixed(2)}`);
    if (r.case.startsWith('title detail, full')) {
      console.log(formatRow('  title statement alone (older baseline) via bare pg', b.titleStatementAlone));
      console.log(`  ${r.case}: service / older baseline ratio ${(r.service.requestsPerSecond / b.titleStatementAlone.requestsPerSecond).toFixed(2)}`);
    }
  }
  if (b.floorWrk) console.log(formatRow('  GET /me, wrk', b.floorWrk));
  for (const w of b.wrk) console.log(`${formatRow(`  ${w.case}: service, wrk`, w.service)}   ratio ${w.ratio.toFixed(2)}`);
  for (const g of b.growth) {
    console.log(formatRow(`  ${g.endpoint}, ${g.small.size} entries`, g.small.figures));
    console.log(formatRow(`  ${g.endpoint}, ${g.large.size} entries`, g.large.figures));
  }
  for (const s of b.skipped) console.log(`  skipped: ${s}`);
}

export function librarySection(b: LibraryBench): Section {
  return section(
    'Library: title detail and history (services mode)',
    `A user with ${HISTORY.toLocaleString('en')} history entries, ${RATINGS} ratings and ${LISTS} lists; ${CONNECTIONS} connections over ${b.titles.toLocaleString('en')} titles. The baseline runs, per request, the statements the service runs (bearer verification, then the title detail's one statement, recommendations included, or the history page). The title detail has no cache: cold is each of ${DRAWN_TITLES.toLocaleString('en')} titles drawn uniformly from the catalog viewed once (the baseline draws ${DRAWN_TITLES.toLocaleString('en')} others), warm the same titles again; the full-user-state row cycles ${DETAIL_TITLES} titles the user has state on. \`GET /me\` is any platform request's floor on this machine.`,
    {
      measures: [
        { label: 'GET /me (floor of any platform request)', figures: b.floor },
        { label: `title detail, ${DRAWN_TITLES.toLocaleString('en')} titles of the whole catalog, cold (each viewed once)`, figures: b.cold.service, baseline: { label: `same statements, ${DRAWN_TITLES.toLocaleString('en')} other titles once, bare pg`, figures: b.cold.bare } },
        ...b.results.map((r) => ({ label: r.case, figures: r.service, baseline: { label: 'same statements, bare pg', figures: r.bare } })),
        ...b.results.filter((r) => r.case.startsWith('title detail, full')).map((r) => ({ label: `${r.case} (vs the title statement alone)`, figures: r.service, baseline: { label: 'title statement alone, bare pg', figures: b.titleStatementAlone } })),
        ...(b.floorWrk ? [{ label: 'GET /me, load from wrk instead of autocannon', figures: b.floorWrk }] : []),
        ...b.wrk.map((w) => ({ label: `${w.case}, load from wrk instead of autocannon`, figures: w.service, baseline: { label: 'same statements, bare pg', figures: b.results.find((r) => r.case === w.case)!.bare } })),
      ],
      values: b.skipped.map((s) => ({ label: 'Skipped', value: s })),
      targets: [
        atLeast(19, 'title detail over 5,000+ titles, cold: at least 0.5x the baseline', b.cold.ratio, 0.5),
        atMost(19, 'title detail over 5,000+ titles, cold: p99 at most 30 ms', b.cold.service.p99, 30),
        ...b.results.filter((r) => r.case.includes('whole catalog')).flatMap((r) => [
          atLeast(19, `${r.case}: at least 0.5x the baseline`, r.ratio, 0.5),
          atMost(19, `${r.case}: p99 at most 30 ms`, r.service.p99, 30),
        ]),
        ...b.results.filter((r) => r.case.startsWith('GET /me/history')).map((r) => atLeast(19, `${r.case}: at least 0.6x the baseline`, r.ratio, 0.6)),
        ...b.results.flatMap((r) => [atMost(5, `${r.case}: p99 at most 25 ms`, r.service.p99, 25), atLeast(5, `${r.case}: at least 0.5x the baseline`, r.ratio, 0.5)]),
        ...b.wrk.map((w) => atMost(5, `${w.case}: p99 at most 25 ms (load from wrk)`, w.service.p99, 25)),
      ],
      growth: b.growth,
    },
  );
}

if (import.meta.main) printLibrary(await benchLibrary());
