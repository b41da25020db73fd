// Issue 35: a read should cost the same for a user with 100,000 watches as for one with 100 (services mode:
// `node src/main.ts` on the local PostgreSQL).
// 1. Three users loaded through the platform API (bulk sync of history and ratings in batches of 100, the
//    limit; lists and their items, collection, favourites, watchlist, show statuses, a few playbacks, a
//    public profile) from thousands of distinct catalog titles: light (100 watches, 20 ratings, one list, a
//    page of collection, favourites, watchlist and followed shows), heavy (20,000 watches, 2,000 ratings,
//    50 lists of 200 items, 500 collection items, 30 followed shows) and very heavy (the same with 100,000
//    watches). Watches are spread over six years to yesterday, 40% movies (a tenth of them rewatches), 60%
//    episodes (most shows watched whole, every fourth half).
// 2. Every GET of both OpenAPI documents that reads a user's data, over one connection, the three users in
//    turns (ROUNDS rounds of a block per user, so a change of the machine's load falls on all three): p50,
//    p99, and CPU ms per request of the service process and of its PostgreSQL backends (/proc), and the
//    very heavy / light ratio of that CPU. Target: at most 1.5x for every read but the export.
// 3. The trophy job's tick after one new watch of each user (followTrophyChanges, the job's whole work,
//    run in this process against the same database with the service's own job off): CPU of this process
//    and its backends per tick.
// 4. POST /sync/ratings beside POST /sync/history for a new user, batches of 100 new items, alternating.
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import { createUser } from '../src/core/accounts/service.ts';
import { createApp } from '../src/core/apps/service.ts';
import { SCOPES } from '../src/core/apps/scopes.ts';
import { openDatabase, migrate, type Database } from '../src/core/db/orm.ts';
import { query } from '../src/core/db/sql.ts';
import { encodeCursor } from '../src/core/paging/cursor.ts';
import { feedParams } from '../src/core/sync/changes.ts';
import { encodeFeedCursor } from '../src/core/sync/feed-cursor.ts';
import { followTrophyChanges } from '../src/core/trophies/follow.ts';
import { benchDatabaseUrl, cpuBetween, cpuMark, percentile, prepareCatalog, request, startService, tempDataDir, tokenIssuer, vacuumAnalyze } from './lib.ts';
import { section, type Section, type Target } from './report.ts';

/** Watches of the light, heavy and very heavy users. */
const SIZES = (process.env.BENCH_GROWTH_SIZES ?? '100,20000,100000').split(',').map(Number);
/** Requests per endpoint and user, in ROUNDS blocks; a block stops early after BLOCK_MS (at least 2 requests). */
const REQUESTS = 60;
const ROUNDS = 4;
const BLOCK_MS = 1000;
const BATCH = 100;
const TICKS = 5;
const RATE_BATCHES = 10;
/** Requests a user's load keeps in flight (its bulk batches, its list, collection and favourite adds). */
const IN_FLIGHT = 3;
const LIMIT = 1.5;
const P = '/api/platform/v1';
const PREFIX = 'bench_growth_';
const DAY_MS = 86_400_000;

type Shape = { name: string; watches: number; ratings: number; lists: number; listItems: number; collection: number; followed: number; favourites: number; watchlist: number };
const FULL = { ratings: 2000, lists: 50, listItems: 200, collection: 500, followed: 30, favourites: 100, watchlist: 200 };
const SHAPES: Shape[] = [
  // The light user's other data fills a page of each of those reads (their default sizes), so they compare growth, not a fuller page.
  { name: 'light', watches: SIZES[0]!, ratings: 20, lists: 1, listItems: 200, collection: 100, followed: 30, favourites: 50, watchlist: 50 },
  { name: 'heavy', watches: SIZES[1]!, ...FULL },
  { name: 'very heavy', watches: SIZES[2]!, ...FULL },
];

type Show = { id: number; episodes: Array<[number, number]> };
type Catalog = { movies: number[]; shows: Show[]; upcoming: Show[]; fixedMovie: number; fixedShow: Show };

/** Every movie, and every show's aired episodes (shows with an episode still to air apart: the calendar's). */
async function readCatalog(db: Database): Promise<Catalog> {
  const em = db.orm.em.fork();
  const movies = (await query<{ id: number }>(em, { text: `select movie_db_id as id from title where type = 'movie' order by popularity desc, id`, params: [] })).map((r) => r.id);
  const rows = await query<{ id: number; s: number; e: number; aired: boolean }>(em, {
    text: `select t.movie_db_id as id, e.season_number as s, e.episode_number as e, coalesce(e.air_date <= current_date, false) as aired
      from episode e join title t on t.id = e.title_id order by t.movie_db_id, e.season_number, e.episode_number`,
    params: [],
  });
  const byShow = new Map<number, { show: Show; upcoming: boolean }>();
  for (const r of rows) {
    const x = byShow.get(r.id) ?? { show: { id: r.id, episodes: [] }, upcoming: false };
    if (r.aired) x.show.episodes.push([r.s, r.e]);
    else x.upcoming = true;
    byShow.set(r.id, x);
  }
  const all = [...byShow.values()].filter((x) => x.show.episodes.length);
  const shows = all.filter((x) => !x.upcoming).map((x) => x.show);
  // Title detail reads the same movie and the same whole show for every user (the most popular movie, a
  // show of 24 episodes or the nearest), so the three differ only in the rest of their data.
  const fixedShow = shows.reduce((a, b) => (Math.abs(b.episodes.length - 24) < Math.abs(a.episodes.length - 24) ? b : a));
  return { movies, shows: shows.filter((s) => s !== fixedShow), upcoming: all.filter((x) => x.upcoming).map((x) => x.show), fixedMovie: movies[0]!, fixedShow };
}

/** A small seeded generator (mulberry32): each user draws its own titles, the same ones every run. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function shuffled<T>(xs: T[], rnd: () => number): T[] {
  const out = [...xs];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(rnd() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

type HistoryItem = { movie_db_id: number; season?: number; episode?: number; watched_at: string };
type Plan = { history: HistoryItem[]; ratings: object[]; movies: number[]; followed: number[]; unwatched: number[] };

/** What a user of `shape` watches, rates and follows (the rest of its data is drawn at load time). */
function plan(shape: Shape, cat: Catalog, rnd: () => number): Plan {
  const end = Date.now() - DAY_MS;
  const start = end - 6 * 365 * DAY_MS;
  const at = (lo: number, hi: number) => lo + rnd() * (hi - lo);
  const watches: Array<{ t: number; item: Omit<HistoryItem, 'watched_at'> }> = [];
  const movieWatches = Math.round(shape.watches * 0.4);
  const rewatches = Math.floor(movieWatches / 10);
  const pool = shuffled(cat.movies.slice(1), rnd);
  const movies = [cat.fixedMovie, ...pool.slice(0, movieWatches - rewatches - 1)];
  const firsts = movies.map((id) => ({ t: at(start, end), item: { movie_db_id: id } }));
  watches.push(...firsts);
  // A rewatch 30 to 600 days after the first (before it when that would pass yesterday): six years leave room.
  for (const w of firsts.slice(0, rewatches)) {
    const d = at(30, 600) * DAY_MS;
    watches.push({ t: w.t + d <= end ? w.t + d : w.t - d, item: w.item });
  }
  let left = shape.watches - watches.length;
  const partial: number[] = [];
  const shows = [cat.fixedShow, ...cat.upcoming, ...shuffled(cat.shows, rnd)];
  const whole: number[] = [];
  let used = 0;
  for (const [i, show] of shows.entries()) {
    if (left <= 0) break;
    used = i + 1;
    const half = i > 0 && (i <= cat.upcoming.length || i % 4 === 3);
    const eps = show.episodes.slice(0, Math.min(left, half ? Math.ceil(show.episodes.length / 2) : show.episodes.length));
    (eps.length === show.episodes.length ? whole : partial).push(show.id);
    // One episode a day from a start that leaves room for the show.
    const t0 = at(start, end - eps.length * DAY_MS);
    eps.forEach(([season, episode], k) => watches.push({ t: t0 + k * DAY_MS + at(0, 3_600_000), item: { movie_db_id: show.id, season, episode } }));
    left -= eps.length;
  }
  watches.sort((a, b) => a.t - b.t);
  const firstAt = new Map(firsts.map((w) => [w.item.movie_db_id, w.t]));
  // Ratings: three quarters of watched movies, a quarter of whole shows (as many as there are), a while after the watch.
  const showCount = Math.min(whole.length, Math.floor(shape.ratings / 4));
  const rated = [
    ...movies.slice(0, shape.ratings - showCount).map((id) => ({ type: 'movie', id, t: firstAt.get(id)! })),
    ...whole.slice(0, showCount).map((id) => ({ type: 'show', id, t: end })),
  ];
  const ratings = rated.map((r) => ({ type: r.type, movie_db_id: r.id, rating: 1 + Math.floor(rnd() * 10), rated_at: new Date(Math.min(end, r.t + 7_200_000)).toISOString() }));
  return {
    history: watches.map((w) => ({ ...w.item, watched_at: new Date(w.t).toISOString() })),
    ratings,
    movies,
    // The shows with episodes to come (the calendar's), the ones half watched, then some not begun.
    followed: [...new Set([...cat.upcoming.map((s) => s.id), ...partial, ...shows.slice(used).map((s) => s.id)])].slice(0, shape.followed),
    unwatched: pool.slice(movieWatches),
  };
}

// One connection for the reads (maxSockets 1); the loading runs the users side by side.
const readAgent = new http.Agent({ keepAlive: true, maxSockets: 1 });
const loadAgent = new http.Agent({ keepAlive: true, maxSockets: 8 });

type Api = (method: string, path: string, body?: unknown, extra?: Record<string, string>) => Promise<unknown>;

function api(url: string, token: string): Api {
  return async (method, path, body, extra = {}) => {
    const headers: Record<string, string> = { authorization: `Bearer ${token}`, ...extra };
    if (body !== undefined) headers['content-type'] = 'application/json';
    const res = await request(method, `${url}${P}${path}`, headers, body === undefined ? undefined : JSON.stringify(body), loadAgent);
    if (res.status >= 300) throw new Error(`${method} ${path} answered ${res.status}: ${res.body.slice(0, 300)}`);
    return res.body ? JSON.parse(res.body) : null;
  };
}

/** `fn` over `xs`, IN_FLIGHT at a time. */
async function inFlight<T>(xs: T[], fn: (x: T, i: number) => Promise<unknown>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: IN_FLIGHT }, async () => {
    for (let i = next++; i < xs.length; i = next++) await fn(xs[i]!, i);
  }));
}

/** Bulk sync of `items` in batches of BATCH: the items the service inserted (or updated, for ratings). */
async function bulk(call: Api, resource: string, items: object[]): Promise<number> {
  let written = 0;
  const batches = Array.from({ length: Math.ceil(items.length / BATCH) }, (_, i) => items.slice(i * BATCH, (i + 1) * BATCH));
  await inFlight(batches, async (batch) => {
    const r = (await call('POST', `/sync/${resource}`, { items: batch }, { 'idempotency-key': randomUUID() })) as { inserted: number; updated: number };
    written += r.inserted + r.updated;
  });
  return written;
}

type Loaded = {
  shape: Shape;
  userId: string;
  username: string;
  token: string;
  listId: number;
  seconds: number;
  written: { history: number; ratings: number };
  fixedMovie: number;
  fixedShow: Show;
};

type User = { userId: string; username: string; token: string };

async function newUser(db: Database, issue: (userId: string) => Promise<string>, tag: string): Promise<User> {
  const username = `${PREFIX}${tag}_${Math.random().toString(36).slice(2, 6)}`;
  const user = await createUser(db.orm.em.fork(), { username, password: 'bench-password-1' });
  return { userId: user.id, username, token: await issue(user.id) };
}

/** Loads a user of `shape` through the platform API, as an app syncing an account would. */
async function load(url: string, user: User, shape: Shape, cat: Catalog, seed: number): Promise<Loaded> {
  const started = Date.now();
  const rnd = random(seed);
  const p = plan(shape, cat, rnd);
  const call = api(url, user.token);
  await call('PATCH', '/me/profile', { privacy: 'public' });
  const history = await bulk(call, 'history', p.history);
  const ratings = await bulk(call, 'ratings', p.ratings);
  const listed = shuffled([...cat.movies.map((id) => ({ type: 'movie', movieDbId: id })), ...cat.shows.map((s) => ({ type: 'show', movieDbId: s.id }))], rnd);
  const listIds: number[] = [];
  await inFlight(Array.from({ length: shape.lists }, (_, l) => l), async (l) => {
    const list = (await call('POST', '/lists', { name: `Bench list ${l + 1}`, isPublic: l % 2 === 0 })) as { id: number };
    listIds[l] = list.id;
    const items = listed.slice(l * shape.listItems, (l + 1) * shape.listItems);
    for (let i = 0; i < items.length; i += BATCH) await call('POST', `/lists/${list.id}/items`, { items: items.slice(i, i + BATCH) });
  });
  // Owned and favourite films: watched ones first, then others (the light user has watched fewer than a page).
  const films = [...p.movies, ...p.unwatched.slice(shape.watchlist + 3)];
  await inFlight(films.slice(0, shape.collection), (id) => call('POST', '/me/collection', { type: 'movie', movieDbId: id, format: 'bluray' }));
  await inFlight(films.slice(0, shape.favourites), (id) => call('POST', '/favourites', { type: 'movie', movieDbId: id }));
  await bulk(call, 'watchlist', p.unwatched.slice(0, shape.watchlist).map((id) => ({ type: 'movie', movie_db_id: id })));
  for (const id of p.followed) await call('PUT', `/show-status/show/${id}`, { status: 'watching' });
  // Three films stopped part-way: continue watching has entries.
  for (const id of p.unwatched.slice(shape.watchlist, shape.watchlist + 3)) {
    await call('POST', '/playback/stop', { event_id: randomUUID(), event_created_at: Date.now(), media_type: 'movie', title: 'Bench film', movie_db_id: id, playback_session_id: randomUUID(), progress: 0.4, duration_seconds: 6000, watched: false });
  }
  return { shape, ...user, listId: listIds[0]!, seconds: (Date.now() - started) / 1000, written: { history, ratings }, fixedMovie: cat.fixedMovie, fixedShow: cat.fixedShow };
}

/** The page cursors that start in the middle of the user's history and of its change log. */
async function middleCursors(db: Database, userId: string): Promise<{ history: string; feed: string }> {
  const em = db.orm.em.fork();
  const [h] = await query<{ position_at: string; id: string }>(em, {
    text: `select to_char(watched_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as position_at, id::text as id
      from watch_history where user_id = $1 order by watched_at desc, id desc offset (select count(*) / 2 from watch_history where user_id = $1) limit 1`,
    params: [userId],
  });
  const [f] = await query<{ xid: string; id: string }>(em, {
    text: `select xid::text as xid, id::text as id from change_log where user_id = $1 and resource = 'history'
      order by xid, id offset (select count(*) / 2 from change_log where user_id = $1 and resource = 'history') limit 1`,
    params: [userId],
  });
  return { history: encodeCursor([h!.position_at, h!.id], {}), feed: encodeFeedCursor(f!, feedParams(['history']), new Date()) };
}

type Endpoint = { name: string; path: (u: Loaded) => string; viewer?: boolean; public?: boolean };

/** Every GET of the two documents that reads the user's data, with the pages worth telling apart. */
function endpoints(cursors: Map<Loaded, { history: string; feed: string; ratingsLast: number }>): Endpoint[] {
  const c = (u: Loaded) => cursors.get(u)!;
  const show = (u: Loaded) => `/title/show/${u.fixedShow.id}`;
  return [
    { name: 'GET /me', path: () => '/me' },
    { name: 'GET /me/profile', path: () => '/me/profile' },
    { name: 'GET /me/preferences', path: () => '/me/preferences' },
    { name: 'GET /me/connected-apps', path: () => '/me/connected-apps' },
    { name: 'GET /profile/home', path: () => '/profile/home' },
    { name: 'GET /me/community-stats', path: () => '/me/community-stats' },
    // A whole year of the six the watches span (a sixth of the history).
    { name: 'GET /me/year-in-review (last year)', path: () => `/me/year-in-review?year=${new Date().getUTCFullYear() - 1}` },
    { name: 'GET /me/history (page 1)', path: () => '/me/history?limit=50' },
    { name: 'GET /me/history (cursor mid-history)', path: (u) => `/me/history?limit=50&cursor=${encodeURIComponent(c(u).history)}` },
    { name: 'GET /me/ratings (page 1)', path: () => '/me/ratings?pageSize=50' },
    { name: 'GET /me/ratings (last page)', path: (u) => `/me/ratings?pageSize=50&page=${c(u).ratingsLast}` },
    { name: 'GET /me/ratings?type=movie', path: () => '/me/ratings?pageSize=50&type=movie' },
    { name: 'GET /me/favourites', path: () => '/me/favourites' },
    { name: 'GET /me/show-statuses', path: () => '/me/show-statuses' },
    { name: 'GET /me/trophies', path: () => '/me/trophies' },
    { name: 'GET /me/trophies/summary', path: () => '/me/trophies/summary' },
    { name: 'GET /calendar (7 days)', path: () => '/calendar?days=7' },
    { name: 'GET /me/lists', path: () => '/me/lists' },
    { name: 'GET /lists/{id}', path: (u) => `/lists/${u.listId}` },
    { name: 'GET /lists/{id}/items', path: (u) => `/lists/${u.listId}/items` },
    { name: 'GET /lists/{id} (public list, another user)', path: (u) => `/lists/${u.listId}`, viewer: true },
    { name: 'GET /me/watchlist', path: () => '/me/watchlist' },
    { name: 'GET /me/list-invitations', path: () => '/me/list-invitations' },
    { name: 'GET /me/collection', path: () => '/me/collection' },
    { name: 'GET /me/sync/changes (first page)', path: () => '/me/sync/changes' },
    { name: 'GET /me/sync/changes (cursor mid-log)', path: (u) => `/me/sync/changes?resources=history&cursor=${encodeURIComponent(c(u).feed)}` },
    { name: 'GET /me/sync/snapshot?resource=history', path: () => '/me/sync/snapshot?resource=history' },
    { name: 'GET /me/sync/snapshot?resource=ratings', path: () => '/me/sync/snapshot?resource=ratings' },
    { name: 'GET /me/continue-watching', path: () => '/me/continue-watching' },
    { name: 'GET /me/notifications', path: () => '/me/notifications' },
    { name: 'GET /me/notifications/unread-count', path: () => '/me/notifications/unread-count' },
    { name: 'GET /me/notification-preferences', path: () => '/me/notification-preferences' },
    { name: 'GET /me/push-devices', path: () => '/me/push-devices' },
    { name: 'GET /title/movie/{id} (watched, rated)', path: (u) => `/title/movie/${u.fixedMovie}` },
    { name: 'GET /title/show/{id} (watched whole)', path: show },
    { name: 'GET /title/show/{id}/seasons', path: (u) => `${show(u)}/seasons` },
    { name: 'GET /title/show/{id}/seasons/{season}', path: (u) => `${show(u)}/seasons/${u.fixedShow.episodes[0]![0]}` },
    { name: 'GET /title/show/{id}/seasons/{s}/episodes/{e}', path: (u) => `${show(u)}/seasons/${u.fixedShow.episodes[0]![0]}/episodes/${u.fixedShow.episodes[0]![1]}` },
    { name: 'public GET /users/{username}', path: (u) => `/users/${u.username}`, public: true },
  ];
}

/** Figures of one endpoint for one user: latency, and CPU ms per request of the service and of its backends. */
type Cell = { p50: number; p99: number; requests: number; serviceMs: number; pgMs: number };
type Row = { endpoint: string; cells: Cell[]; error?: string };

const cpuOf = (c: Cell) => c.serviceMs + c.pgMs;
const ratioOf = (r: Row) => cpuOf(r.cells.at(-1)!) / cpuOf(r.cells[0]!);

/** The median of a few figures (the mean of the middle two for an even count). */
function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return (s[Math.floor((s.length - 1) / 2)]! + s[Math.ceil((s.length - 1) / 2)]!) / 2;
}

/**
 * `e` for each user in turns: a warm-up, then ROUNDS blocks per user, CPU read around each block. CPU
 * per request is the median over the blocks: a background job of the service or a garbage collection
 * that lands in one block does not decide the ratio.
 */
async function measure(url: string, db: Database, pid: number, users: Loaded[], viewer: User, e: Endpoint): Promise<Row> {
  const get = async (u: Loaded) => {
    const path = `${url}${e.public ? '/api/public/v1' : P}${e.path(u)}`;
    const res = await request('GET', path, e.public ? {} : { authorization: `Bearer ${e.viewer ? viewer.token : u.token}` }, undefined, readAgent);
    if (res.status !== 200) throw new Error(`${u.shape.name}: ${res.status} ${res.body.slice(0, 200)}`);
  };
  const latencies = users.map(() => [] as number[]);
  const blocks = users.map(() => ({ service: [] as number[], pg: [] as number[] }));
  try {
    for (const u of users) for (let i = 0; i < 2; i++) await get(u);
    for (let round = 0; round < ROUNDS; round++) {
      for (const [i, u] of users.entries()) {
        const from = await cpuMark(db, pid);
        const started = performance.now();
        let n = 0;
        for (; n < REQUESTS / ROUNDS && (n < 2 || performance.now() - started < BLOCK_MS); n++) {
          const t = performance.now();
          await get(u);
          latencies[i]!.push(performance.now() - t);
        }
        const to = await cpuMark(db, pid);
        if (!from || !to) throw new Error('no CPU figures (/proc)');
        const c = cpuBetween(from, to);
        blocks[i]!.service.push(c.server / n);
        blocks[i]!.pg.push(c.backends / n);
      }
    }
  } catch (err) {
    return { endpoint: e.name, cells: [], error: (err as Error).message };
  }
  return {
    endpoint: e.name,
    cells: latencies.map((l, i) => {
      l.sort((a, b) => a - b);
      return { p50: percentile(l, 50), p99: percentile(l, 99), requests: l.length, serviceMs: median(blocks[i]!.service), pgMs: median(blocks[i]!.pg) };
    }),
  };
}

/**
 * One tick of the trophy job after one new watch of each user in turns: the job's whole work
 * (followTrophyChanges, as trophyJob runs it), timed and its CPU read in this process and its backends.
 */
async function trophyTicks(url: string, db: Database, users: Loaded[], cat: Catalog): Promise<Row> {
  const wall = users.map(() => [] as number[]);
  const cpu = users.map(() => ({ job: [] as number[], pg: [] as number[] }));
  let movie = cat.movies.length;
  let retried = 0;
  // Round -1 warms up (this process's first ticks compile the job's code and parse its statements).
  for (let t = -1; t < TICKS; t++) {
    for (const [i, u] of users.entries()) {
      // A tick that evaluated other users than this one (another service on this database wrote, or its
      // trophy job took the change first) is run again with a new watch, up to 5 times.
      for (let attempt = 1; ; attempt++) {
        await api(url, u.token)('POST', '/sync/history', { items: [{ movie_db_id: cat.movies[--movie]!, watched_at: new Date(Date.now() - 60_000).toISOString() }] }, { 'idempotency-key': randomUUID() });
        const from = await cpuMark(db, process.pid);
        const started = performance.now();
        // This process's CPU read around the tick alone (the marks' own work is this process's too).
        const self = process.cpuUsage();
        const r = await followTrophyChanges(db.orm.em.fork());
        const { user, system } = process.cpuUsage(self);
        const ms = performance.now() - started;
        const to = await cpuMark(db, process.pid);
        if (!from || !to) throw new Error('no CPU figures (/proc)');
        if (r.users !== 1 && attempt < 5) {
          retried += 1;
          continue;
        }
        if (t < 0) break;
        wall[i]!.push(ms);
        cpu[i]!.job.push((user + system) / 1000);
        cpu[i]!.pg.push(cpuBetween(from, to).backends);
        break;
      }
    }
  }
  if (retried) process.stderr.write(`${retried} trophy ticks run again: they evaluated other users than the one written\n`);
  return {
    endpoint: 'trophy job, one tick after one new watch',
    cells: wall.map((l, i) => {
      l.sort((a, b) => a - b);
      return { p50: percentile(l, 50), p99: percentile(l, 99), requests: l.length, serviceMs: median(cpu[i]!.job), pgMs: median(cpu[i]!.pg) };
    }),
  };
}

type Rate = { itemsPerSecond: number; p50: number; p99: number; serviceMs: number; pgMs: number };

/** POST /sync/history and POST /sync/ratings for a new user, batches of BATCH new items, alternating. */
async function bulkRates(url: string, db: Database, pid: number, user: User, cat: Catalog): Promise<{ history: Rate; ratings: Rate }> {
  const call = api(url, user.token);
  const runs = { history: [] as number[], ratings: [] as number[] };
  const cpu = { history: { service: 0, pg: 0 }, ratings: { service: 0, pg: 0 } };
  const half = RATE_BATCHES * BATCH;
  for (let b = 0; b < RATE_BATCHES; b++) {
    for (const kind of ['history', 'ratings'] as const) {
      const ids = cat.movies.slice((kind === 'history' ? 0 : half) + b * BATCH, (kind === 'history' ? 0 : half) + (b + 1) * BATCH);
      const items = ids.map((id, k) => (kind === 'history' ? { movie_db_id: id, watched_at: new Date(Date.now() - 2 * DAY_MS - (b * BATCH + k) * 60_000).toISOString() } : { type: 'movie', movie_db_id: id, rating: 1 + (k % 10) }));
      const from = await cpuMark(db, pid);
      const t = performance.now();
      const r = (await call('POST', `/sync/${kind}`, { items }, { 'idempotency-key': randomUUID() })) as { inserted: number };
      runs[kind].push(performance.now() - t);
      const to = await cpuMark(db, pid);
      if (r.inserted !== BATCH) throw new Error(`POST /sync/${kind} inserted ${r.inserted} of ${BATCH}`);
      if (!from || !to) throw new Error('no CPU figures (/proc)');
      const c = cpuBetween(from, to);
      cpu[kind].service += c.server;
      cpu[kind].pg += c.backends;
    }
  }
  const rate = (kind: 'history' | 'ratings'): Rate => {
    const l = runs[kind].sort((a, b) => a - b);
    const items = l.length * BATCH;
    return { itemsPerSecond: items / (l.reduce((a, b) => a + b, 0) / 1000), p50: percentile(l, 50), p99: percentile(l, 99), serviceMs: cpu[kind].service / items, pgMs: cpu[kind].pg / items };
  };
  return { history: rate('history'), ratings: rate('ratings') };
}

export type GrowthBench = {
  titles: number;
  users: Array<{ shape: Shape; seconds: number; written: { history: number; ratings: number } }>;
  loadSeconds: number;
  catchUpSeconds: number;
  readSeconds: number;
  rows: Row[];
  tick: Row;
  rates: { history: Rate; ratings: Rate };
  /** This service's background jobs that ran while the reads were measured (their CPU counts in the service's). */
  jobsDuringReads: string[];
  seconds: number;
};

export async function benchGrowth(): Promise<GrowthBench> {
  const started = Date.now();
  const databaseUrl = benchDatabaseUrl();
  const titles = await prepareCatalog({ databaseUrl, dataDir: tempDataDir() });
  const db = await openDatabase({ databaseUrl, dataDir: '/nonexistent' });
  await migrate(db.orm);
  const clean = () => query(db.orm.em.fork(), { text: `delete from app_user where username like 'bench\\_growth\\_%'`, params: [] });
  // The service's own trophy job is off: the ticks below are the job's, run here, and no other must take their changes.
  const service = await startService({ DATABASE_URL: databaseUrl, TROPHY_INTERVAL_MS: '0', IMPORT_INTERVAL_MS: '0' });
  try {
    await clean();
    const cat = await readCatalog(db);
    const app = await createApp(db.orm.em.fork(), { name: 'Growth bench', redirectUris: ['http://127.0.0.1:1/cb'], scopes: [...SCOPES], confidential: false, official: true });
    const mint = await tokenIssuer(db, databaseUrl);
    const issue = (userId: string) => mint(userId, app.client_id, SCOPES.join(' '));
    const loadStarted = Date.now();
    const users = await Promise.all(SHAPES.map(async (shape, i) => load(service.url, await newUser(db, issue, shape.name.replace(' ', '_')), shape, cat, i + 1)));
    const loadSeconds = (Date.now() - loadStarted) / 1000;
    for (const u of users) process.stderr.write(`${u.shape.name}: loaded in ${u.seconds.toFixed(0)} s (${u.written.history} watches, ${u.written.ratings} ratings)\n`);
    // Statistics as autovacuum would have them after such a load (the plans then are the ones measured).
    await vacuumAnalyze(databaseUrl);
    // The trophy job's catch-up on the loaded data: trophies and their notifications exist before the reads.
    const catchUp = Date.now();
    await followTrophyChanges(db.orm.em.fork());
    const catchUpSeconds = (Date.now() - catchUp) / 1000;

    const viewer = await newUser(db, issue, 'viewer');
    const cursors = new Map<Loaded, { history: string; feed: string; ratingsLast: number }>();
    for (const u of users) {
      const first = (await api(service.url, u.token)('GET', '/me/ratings?pageSize=50')) as { total: number };
      cursors.set(u, { ...(await middleCursors(db, u.userId)), ratingsLast: Math.max(1, Math.ceil(first.total / 50)) });
    }
    const readsFrom = new Date();
    const rows: Row[] = [];
    for (const e of endpoints(cursors)) {
      rows.push(await measure(service.url, db, service.child.pid!, users, viewer, e));
      process.stderr.write(`${printRow(rows.at(-1)!)}\n`);
    }
    const readSeconds = (Date.now() - readsFrom.getTime()) / 1000;
    const jobsDuringReads = (
      await query<{ job: string; n: number }>(db.orm.em.fork(), {
        text: `select job, count(*)::int as n from job_run where started_at >= $1 and split_part(instance, ':', 2) = $2 group by job order by job`,
        params: [readsFrom, String(service.child.pid)],
      })
    ).map((r) => `${r.job} (${r.n})`);
    const tick = await trophyTicks(service.url, db, users, cat);
    const rates = await bulkRates(service.url, db, service.child.pid!, await newUser(db, issue, 'rates'), cat);
    return {
      titles,
      users: users.map((u) => ({ shape: u.shape, seconds: u.seconds, written: u.written })),
      loadSeconds,
      catchUpSeconds,
      readSeconds,
      rows,
      tick,
      rates,
      jobsDuringReads,
      seconds: (Date.now() - started) / 1000,
    };
  } finally {
    await service.stop();
    await clean();
    await db.close();
  }
}

const f = (v: number) => v.toFixed(v < 10 ? 2 : 1);
const cellText = (c: Cell) => `${f(c.p50)} / ${f(c.p99)} ms; ${f(c.serviceMs)} + ${f(c.pgMs)} ms`;

function printRow(r: Row): string {
  if (r.error) return `  ${r.endpoint.padEnd(48)} failed: ${r.error}`;
  return `  ${r.endpoint.padEnd(48)} ${r.cells.map((c) => cellText(c).padEnd(34)).join(' ')} ${ratioOf(r).toFixed(2)}x`;
}

export function printGrowth(b: GrowthBench): void {
  console.log(`\ngrowth (services mode, ${b.titles} titles; one connection; per user: p50 / p99, CPU per request service + its PostgreSQL backends)`);
  for (const u of b.users) console.log(`  ${u.shape.name}: ${u.written.history} watches, ${u.written.ratings} ratings loaded in ${u.seconds.toFixed(0)} s`);
  console.log(`  ${'endpoint'.padEnd(48)} ${SHAPES.map((s) => s.name.padEnd(34)).join(' ')} very heavy / light CPU`);
  for (const r of [...b.rows, b.tick]) console.log(printRow(r));
  const { history: h, ratings: r } = b.rates;
  console.log(`  bulk history ${h.itemsPerSecond.toFixed(0)} items/s, bulk ratings ${r.itemsPerSecond.toFixed(0)} items/s (ratings / history ${(r.itemsPerSecond / h.itemsPerSecond).toFixed(2)})`);
  if (b.jobsDuringReads.length) console.log(`  background jobs during the reads: ${b.jobsDuringReads.join(', ')}`);
}

export function growthSection(b: GrowthBench): Section {
  const measured = b.rows.filter((r) => !r.error);
  const over = measured.filter((r) => ratioOf(r) > LIMIT);
  const worst = measured.reduce<Row | undefined>((w, r) => (!w || ratioOf(r) > ratioOf(w) ? r : w), undefined);
  const targets: Target[] = [];
  if (worst) {
    const met = over.length === 0 && measured.length === b.rows.length;
    targets.push({
      issue: 35,
      target: `every read of a user's data but the export: CPU per request of the very heavy user at most ${LIMIT}x the light user's`,
      measured: `worst ${ratioOf(worst).toFixed(2)}x (${worst.endpoint}); ${over.length} of ${b.rows.length} reads over${measured.length < b.rows.length ? `, ${b.rows.length - measured.length} failed` : ''}`,
      met,
      ...(met ? {} : { miss: `${over.length} reads over ${LIMIT}x` }),
    });
  }
  const tickRatio = ratioOf(b.tick);
  targets.push({ issue: 35, target: `trophy job tick after one new watch: CPU of the very heavy user at most ${LIMIT}x the light user's`, measured: `${tickRatio.toFixed(2)}x`, met: tickRatio <= LIMIT, ...(tickRatio <= LIMIT ? {} : { miss: `${(tickRatio / LIMIT).toFixed(2)}x the limit` }) });
  const row = (r: Row) => (r.error ? [r.endpoint, `failed: ${r.error}`, '', '', '', ''] : [r.endpoint, ...r.cells.map(cellText), `${ratioOf(r).toFixed(2)}x`, ratioOf(r) <= LIMIT ? 'yes' : '**no**']);
  const { history: h, ratings: r } = b.rates;
  const rate = (x: Rate) => `${x.itemsPerSecond.toFixed(0)} items/s, per batch p50 ${f(x.p50)} ms, p99 ${f(x.p99)} ms; CPU per item ${f(x.serviceMs)} ms service + ${f(x.pgMs)} ms PostgreSQL`;
  return section(
    'Growth: reads of a light, a heavy and a very heavy user (services mode)',
    `Three users loaded through the platform API: ${SHAPES.map((s) => `${s.name} (${s.watches.toLocaleString('en')} watches, ${s.ratings.toLocaleString('en')} ratings, ${s.lists} list${s.lists > 1 ? 's' : ''} of ${s.listItems} items, ${s.collection} collection items, ${s.followed} followed shows, ${s.favourites} favourites, ${s.watchlist} watchlist items)`).join(', ')}, over ${b.titles.toLocaleString('en')} titles; watches over six years, 40% movies (a tenth rewatches), 60% episodes (most shows whole). Each GET of both documents that reads a user's data, over one connection, the users in turns (${ROUNDS} rounds of up to ${REQUESTS / ROUNDS} requests per user, a round cut at ${BLOCK_MS} ms after 2), after 2 warm-up requests each. CPU is the service process's and its PostgreSQL backends' (/proc), per request, the median over a user's ${ROUNDS} rounds (a background job or a garbage collection in one round does not decide the ratio); PostgreSQL's parallel workers are not counted (they end with their query, before /proc can be read), so where a plan goes parallel the PostgreSQL figure is low and the latency shows the rest. Not measured: GET /me/export (it streams the whole account and grows with it by design), GET /playback/events (a live stream), the public catalog and community overview (no user's data).`,
    {
      values: [
        ...b.users.map((u) => ({ label: `Load of the ${u.shape.name} user through the API`, value: `${u.seconds.toFixed(0)} s (${u.written.history.toLocaleString('en')} watches, ${u.written.ratings.toLocaleString('en')} ratings written; the three side by side, ${b.loadSeconds.toFixed(0)} s in all)` })),
        { label: 'Trophy job catch-up on the loaded data (one run)', value: `${b.catchUpSeconds.toFixed(1)} s` },
        { label: `POST /sync/history, ${BATCH} new watches a batch (new user)`, value: rate(h) },
        { label: `POST /sync/ratings, ${BATCH} new ratings a batch (same user, batches alternating with history)`, value: rate(r) },
        { label: 'Bulk ratings / bulk history items/s', value: (r.itemsPerSecond / h.itemsPerSecond).toFixed(2) },
        { label: 'Reads measured in', value: `${b.readSeconds.toFixed(0)} s` },
        { label: 'Background jobs of the service that ran during the reads', value: b.jobsDuringReads.length ? b.jobsDuringReads.join(', ') : 'none' },
      ],
      targets,
      tables: [
        {
          caption: `Each user's cell: p50 / p99 latency; CPU per request of the service + of its PostgreSQL backends. The trophy tick's CPU is the job's (this process) + its backends, the median of ${TICKS} ticks per user.`,
          header: ['Endpoint', ...SHAPES.map((s) => s.name), 'Very heavy / light CPU', `Within ${LIMIT}x?`],
          rows: [...b.rows, b.tick].map(row),
        },
      ],
    },
  );
}

if (import.meta.main) printGrowth(await benchGrowth());
