// Issue #35, "never drifting": whatever writes came before, every figure kept on write (src/core/figures/)
// equals what rebuildUserFigures recomputes from the rows. Random sequences of writes go to several users
// through every write path there is: logWatches itself and POST /watch-history (an episode, a season, a
// whole show), POST /sync/history in bulk (with duplicates inside the hour and rewatches), time edits
// (changeWatchedAt and PATCH /watch-history/{id}), deletes (deleteWatch and DELETE, one entry or a whole
// day), ratings set, changed and removed (setRating / removeRating, POST /ratings, DELETE /ratings/{id},
// POST /sync/ratings with a target twice in one batch), favourites and show statuses, and imports (a
// user's own export, read by the `own` importer into that user or another). Dates cluster around week
// boundaries (Sunday to Monday, UTC), month and year ends over seven years, at times near midnight and
// sent with UTC offsets, so days gain and lose their first and last entry and streak runs grow, merge and
// split. A few steps send several writes of one user at once (in services mode they race for the locks).
// Each sequence ends with the write paths its draw left out, so every seed goes through all of them.
// After every CHECK_EVERY steps and at each sequence's end, each user's kept rows are compared with the
// rebuilt ones (and the totals, their split between movies and episodes, the ratings' counts and Up
// next's columns with the rows, directly); a difference fails with the seed, the steps of that user since
// the last check and a diff.
//
// The generator is seeded (mulberry32, the catalog's own): the seed is printed; FIGURES_SEED tries
// another, FIGURES_SEQUENCES and FIGURES_STEPS make a longer run by hand. Not fast-check: a failing
// sequence's shrinking would replay sequences against the database for minutes, and the steps since the
// last check (each check starts the figures again from the rows) are already a short trace.
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCOPES } from '../src/core/apps/scopes.ts';
import { seededRandom, type Random } from '../src/core/catalog/import/prng.ts';
import { transaction } from '../src/core/db/transaction.ts';
import { importNow } from '../src/core/import/run.ts';
import { changeWatchedAt, deleteWatch } from '../src/core/library/history-edit.ts';
import { logWatches, type WatchInput } from '../src/core/library/history-write.ts';
import { SHOW_STATUSES } from '../src/core/library/library-items.ts';
import { removeRating, setRating, type RatingTarget } from '../src/core/library/ratings-write.ts';
import { MOVIE_STATUSES } from '../src/core/library/title-state-write.ts';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { addSpecial, exportOf } from './helpers/export-seed.ts';
import { keptAgainstRebuilt, rowCount } from './helpers/figures.ts';
import { FIRST_SHOW, member, platform, seedCatalog, SPIRITED_AWAY, type Member } from './helpers/seed.ts';
import { bulk } from './helpers/sync-client.ts';
import { sql } from './helpers/title-fixtures.ts';

const SEED = Number(process.env.FIGURES_SEED ?? 35_004);
const SEQUENCES = Number(process.env.FIGURES_SEQUENCES ?? 3);
const STEPS = Number(process.env.FIGURES_STEPS ?? 45);
const CHECK_EVERY = 15;
const USERS = 5;

const DAY_MS = 86_400_000;
const NOW = Date.now();
/** Days the dates cluster after: Saturdays before a Monday, month and year ends, a leap day; 2019 to this year. */
const ANCHORS = ['2019-12-28', '2020-02-27', '2020-05-30', '2021-01-30', '2021-10-30', '2022-07-30', '2022-12-30', '2023-03-25', '2023-09-29', '2024-02-24', '2024-08-31', '2025-05-30', '2025-12-27', '2026-02-27'];
const TIMES = ['00:00:00', '00:20:00', '07:45:00', '12:00:00', '19:30:00', '23:40:00', '23:59:59'];
/** Offsets a client may send a time with (the same instant: the UTC day is what counts). */
const OFFSETS = [0, 0, 0, 120, -300, 330, -480];

let app: TestApp;
const em = () => app.db.orm.em.fork();
let users: Member[];

type Episode = { id: string; season: number; episode: number; aired: boolean };
type Title = { id: string; type: 'movie' | 'show'; movieDbId: number; episodes: Episode[] };
let movies: Title[];
let shows: Title[];

const stats = { steps: 0, checks: 0, rowsCompared: 0, checkMs: 0, showsInProgress: 0, ops: {} as Record<string, number> };
/** Per user, the steps since the figures were last compared (the trace a failure shows). */
const trace = new Map<string, string[]>();

function step(u: Member, op: string, what: string): void {
  stats.ops[op] = (stats.ops[op] ?? 0) + 1;
  trace.get(u.userId)!.push(`${op}: ${what}`);
}

// ---- dates

/** A past instant near an anchor (or in the last weeks), as a Date. */
function when(r: Random): Date {
  if (r.next() < 0.15) return new Date(NOW - r.int(60, 40 * 24 * 60) * 60_000);
  const day = Date.parse(`${r.pick(ANCHORS)}T00:00:00Z`) + r.int(0, 9) * DAY_MS;
  const at = Date.parse(`${new Date(day).toISOString().slice(0, 10)}T${r.pick(TIMES)}Z`) + r.int(0, 3) * 60_000;
  return new Date(Math.min(at, NOW - 60_000));
}

/** The instant as a client may spell it: with a UTC offset of its own. */
function spelled(r: Random, at: Date): string {
  const offset = r.pick(OFFSETS);
  if (offset === 0) return at.toISOString();
  const local = new Date(at.getTime() + offset * 60_000).toISOString().slice(0, 19);
  const sign = offset < 0 ? '-' : '+';
  const abs = Math.abs(offset);
  return `${local}${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
}

/** Near another instant: minutes (the same watch again), or across a midnight, or a day or a week away. */
function near(r: Random, at: Date): Date {
  const ms = r.pick([r.int(1, 50) * 60_000, r.int(-1, 1) * DAY_MS + r.int(-90, 90) * 60_000, 7 * DAY_MS]);
  return new Date(Math.min(at.getTime() + ms, NOW - 60_000));
}

// ---- what is written

const pickEpisode = (r: Random, show: Title) => r.pick(show.episodes.filter((e) => e.aired));
const titleOf = (r: Random) => (r.next() < 0.4 ? r.pick(movies) : r.pick(shows));
const runtime = (r: Random) => (r.next() < 0.75 ? null : r.int(0, 200));

function watchInput(r: Random, at: Date): WatchInput {
  const t = titleOf(r);
  const e = t.type === 'show' ? pickEpisode(r, t) : null;
  return { titleId: t.id, episodeId: e?.id ?? null, season: e?.season ?? null, episode: e?.episode ?? null, watchedAt: at, runtimeMinutes: runtime(r), source: 'api', clientId: null };
}

function ratingTarget(r: Random): { target: RatingTarget; title: Title; wire: Record<string, unknown> } {
  const t = titleOf(r);
  if (t.type === 'movie') return { title: t, target: { titleId: t.id, scope: 'title', season: null, episode: null }, wire: { type: 'movie', movieDbId: t.movieDbId } };
  const e = r.pick(t.episodes);
  const scope = r.pick(['series', 'season', 'episode'] as const);
  const season = scope === 'series' ? null : e.season;
  const episode = scope === 'episode' ? e.episode : null;
  return { title: t, target: { titleId: t.id, scope, season, episode }, wire: { type: 'show', movieDbId: t.movieDbId, ...(season === null ? {} : { season }), ...(episode === null ? {} : { episode }) } };
}

async function ok(res: Promise<{ status: number; body: unknown }>, what: string): Promise<Record<string, unknown>> {
  const answer = await res;
  if (answer.status !== 200) throw new Error(`${what} answered ${answer.status}: ${JSON.stringify(answer.body)}`);
  return answer.body as Record<string, unknown>;
}

/** An entry's minutes, as the figures count them (written out here, so the check does not borrow the rule it checks). */
const MINUTES = 'coalesce(w.runtime_minutes, e.runtime_minutes, t.runtime_minutes, t.episode_run_time_minutes, 0)';

const entriesOf = (u: Member) => sql<{ id: string; watched_at: Date }>(app, 'select id, watched_at from watch_history where user_id = $1 order by id', [u.userId]);

// ---- the writes

type Op = { name: string; weight: number; burst?: boolean; run(r: Random, u: Member): Promise<void> };

const OPS: Op[] = [
  {
    name: 'logWatches',
    weight: 3,
    burst: true,
    async run(r, u) {
      const first = watchInput(r, when(r));
      const watches = [first];
      for (let i = r.int(0, 3); i > 0; i--) {
        const kind = r.int(0, 2);
        // The same watch again (inside the hour: skipped), a rewatch another day, or another title.
        if (kind === 0) watches.push({ ...first, watchedAt: new Date(first.watchedAt.getTime() + r.int(1, 50) * 60_000) });
        else if (kind === 1) watches.push({ ...first, watchedAt: near(r, first.watchedAt) });
        else watches.push(watchInput(r, near(r, first.watchedAt)));
      }
      step(u, 'logWatches', watches.map((w) => `${w.titleId}/${w.episodeId ?? '-'}@${w.watchedAt.toISOString()}${w.runtimeMinutes === null ? '' : ` ${w.runtimeMinutes}min`}`).join(', '));
      await transaction(em(), (tx) => logWatches(tx, u.userId, watches));
    },
  },
  {
    name: 'POST /watch-history',
    weight: 3,
    burst: true,
    async run(r, u) {
      const t = titleOf(r);
      const at = spelled(r, when(r));
      let body: Record<string, unknown> = { type: 'movie', movieDbId: t.movieDbId, watchedAt: at };
      if (t.type === 'show') {
        const e = pickEpisode(r, t);
        const what = r.next();
        // Mostly one episode; sometimes a season, rarely the whole show (a hundred entries or more).
        body = what < 0.7 ? { type: 'show', movieDbId: t.movieDbId, season: e.season, episode: e.episode, watchedAt: at } : what < 0.95 ? { type: 'show', movieDbId: t.movieDbId, season: e.season, watchedAt: at } : { type: 'show', movieDbId: t.movieDbId, watchedAt: at };
      }
      step(u, 'POST /watch-history', JSON.stringify(body));
      await ok(platform(app, u.token, 'POST', '/watch-history', body), 'POST /watch-history');
    },
  },
  {
    name: 'POST /sync/history',
    weight: 3,
    burst: true,
    async run(r, u) {
      const items: Record<string, unknown>[] = [];
      for (let i = r.int(1, 8); i > 0; i--) {
        const previous = items.length > 0 && r.next() < 0.35 ? r.pick(items) : null;
        if (previous) {
          // A duplicate inside the hour, or a rewatch of the same item later.
          const at = r.next() < 0.5 ? new Date(Date.parse(previous.watched_at as string) + r.int(0, 59) * 60_000) : near(r, new Date(previous.watched_at as string));
          items.push({ ...previous, watched_at: spelled(r, new Date(Math.min(at.getTime(), NOW - 60_000))) });
          continue;
        }
        const w = watchInput(r, when(r));
        const t = [...movies, ...shows].find((x) => x.id === w.titleId)!;
        items.push({ movie_db_id: t.movieDbId, ...(w.season === null ? {} : { season: w.season, episode: w.episode }), watched_at: spelled(r, w.watchedAt), ...(w.runtimeMinutes === null ? {} : { runtime_minutes: w.runtimeMinutes }) });
      }
      step(u, 'POST /sync/history', JSON.stringify(items));
      const body = await ok(bulk(app, u.token, 'history', items), 'POST /sync/history');
      expect(body.invalid ?? 0, JSON.stringify(body)).toBe(0);
    },
  },
  {
    name: 'changeWatchedAt',
    weight: 2,
    async run(r, u) {
      const entries = await entriesOf(u);
      if (entries.length === 0) return;
      const e = r.pick(entries);
      const to = r.next() < 0.5 ? near(r, new Date(e.watched_at)) : when(r);
      step(u, 'changeWatchedAt', `${e.id} ${new Date(e.watched_at).toISOString()} -> ${to.toISOString()}`);
      await changeWatchedAt(em(), u.userId, Number(e.id), to);
    },
  },
  {
    name: 'PATCH /watch-history',
    weight: 2,
    async run(r, u) {
      const entries = await entriesOf(u);
      if (entries.length === 0) return;
      const e = r.pick(entries);
      const to = spelled(r, r.next() < 0.5 ? near(r, new Date(e.watched_at)) : when(r));
      step(u, 'PATCH /watch-history', `${e.id} ${new Date(e.watched_at).toISOString()} -> ${to}`);
      await ok(platform(app, u.token, 'PATCH', `/watch-history/${e.id}`, { watchedAt: to }), 'PATCH /watch-history');
    },
  },
  {
    name: 'deleteWatch',
    weight: 2,
    async run(r, u) {
      const entries = await entriesOf(u);
      if (entries.length === 0) return;
      const e = r.pick(entries);
      step(u, 'deleteWatch', e.id);
      await deleteWatch(em(), u.userId, Number(e.id));
    },
  },
  {
    name: 'DELETE /watch-history',
    weight: 2,
    async run(r, u) {
      const entries = await entriesOf(u);
      if (entries.length === 0) return;
      // One entry, or every entry of its UTC day (the day goes, a run may split).
      const e = r.pick(entries);
      const day = new Date(e.watched_at).toISOString().slice(0, 10);
      const gone = r.next() < 0.6 ? [e] : entries.filter((x) => new Date(x.watched_at).toISOString().slice(0, 10) === day);
      step(u, 'DELETE /watch-history', gone.map((x) => x.id).join(', '));
      for (const x of gone) await ok(platform(app, u.token, 'DELETE', `/watch-history/${x.id}`), 'DELETE /watch-history');
    },
  },
  {
    name: 'setRating',
    weight: 2,
    burst: true,
    async run(r, u) {
      const { target } = ratingTarget(r);
      const rating = r.int(1, 10);
      const at = r.next() < 0.8 ? when(r) : undefined;
      step(u, 'setRating', `${JSON.stringify(target)} ${rating} at ${at?.toISOString() ?? 'now'}`);
      await transaction(em(), (tx) => setRating(tx, u.userId, target, rating, at));
    },
  },
  {
    name: 'removeRating',
    weight: 1,
    async run(r, u) {
      const [rated] = await sql<{ title_id: string; scope: RatingTarget['scope']; season_number: number | null; episode_number: number | null }>(
        app,
        'select title_id, scope, season_number, episode_number from user_rating where user_id = $1 order by id offset $2 limit 1',
        [u.userId, r.int(0, 20)],
      );
      if (!rated) return;
      const target: RatingTarget = { titleId: String(rated.title_id), scope: rated.scope, season: rated.season_number, episode: rated.episode_number };
      step(u, 'removeRating', JSON.stringify(target));
      await transaction(em(), (tx) => removeRating(tx, u.userId, target));
    },
  },
  {
    name: 'POST /ratings',
    weight: 1,
    burst: true,
    async run(r, u) {
      const { wire } = ratingTarget(r);
      const body = { ...wire, rating: r.int(1, 10) };
      step(u, 'POST /ratings', JSON.stringify(body));
      await ok(platform(app, u.token, 'POST', '/ratings', body), 'POST /ratings');
    },
  },
  {
    name: 'DELETE /ratings',
    weight: 1,
    async run(r, u) {
      const ids = await sql<{ id: string }>(app, 'select id from user_rating where user_id = $1 order by id', [u.userId]);
      if (ids.length === 0) return;
      const { id } = r.pick(ids);
      step(u, 'DELETE /ratings', id);
      await ok(platform(app, u.token, 'DELETE', `/ratings/${id}`), 'DELETE /ratings');
    },
  },
  {
    name: 'POST /sync/ratings',
    weight: 3,
    burst: true,
    async run(r, u) {
      const items: Record<string, unknown>[] = [];
      for (let i = r.int(1, 6); i > 0; i--) {
        // A target named twice in one batch: the second item changes (or removes) what the first set.
        const again = items.length > 0 && r.next() < 0.25;
        const ref = again ? Object.fromEntries(Object.entries(r.pick(items)).filter(([k]) => ['movie_db_id', 'type', 'season', 'episode'].includes(k))) : toSync(ratingTarget(r).wire);
        if (r.next() < 0.2) items.push({ ...ref, remove: true });
        else items.push({ ...ref, rating: r.int(1, 10), ...(r.next() < 0.8 ? { rated_at: spelled(r, when(r)) } : {}) });
      }
      step(u, 'POST /sync/ratings', JSON.stringify(items));
      const body = await ok(bulk(app, u.token, 'ratings', items), 'POST /sync/ratings');
      expect(body.invalid ?? 0, JSON.stringify(body)).toBe(0);
    },
  },
  {
    name: 'favourite',
    weight: 1,
    burst: true,
    async run(r, u) {
      const t = titleOf(r);
      const mark = r.next() < 0.6;
      step(u, 'favourite', `${mark ? 'mark' : 'unmark'} ${t.type} ${t.movieDbId}`);
      if (mark) await ok(platform(app, u.token, 'POST', '/favourites', { type: t.type, movieDbId: t.movieDbId }), 'POST /favourites');
      else await ok(platform(app, u.token, 'DELETE', `/favourites/${t.type}/${t.movieDbId}`), 'DELETE /favourites');
    },
  },
  {
    name: 'show status',
    weight: 1,
    burst: true,
    async run(r, u) {
      const t = titleOf(r);
      const status = r.next() < 0.25 ? null : r.pick(t.type === 'movie' ? MOVIE_STATUSES : SHOW_STATUSES);
      step(u, 'show status', `${t.type} ${t.movieDbId} -> ${status ?? 'cleared'}`);
      if (status) await ok(platform(app, u.token, 'PUT', `/show-status/${t.type}/${t.movieDbId}`, { status }), 'PUT /show-status');
      else await ok(platform(app, u.token, 'DELETE', `/show-status/${t.type}/${t.movieDbId}`), 'DELETE /show-status');
    },
  },
  {
    name: 'clear everything',
    weight: 0.3,
    async run(r, u) {
      // Every entry and rating removed, one by one: the user is back to no figures at all.
      const entries = await entriesOf(u);
      const rated = await sql<{ title_id: string; scope: RatingTarget['scope']; season_number: number | null; episode_number: number | null }>(app, 'select title_id, scope, season_number, episode_number from user_rating where user_id = $1', [u.userId]);
      step(u, 'clear everything', `${entries.length} entries, ${rated.length} ratings`);
      for (const e of entries) await deleteWatch(em(), u.userId, Number(e.id));
      for (const x of rated) await transaction(em(), (tx) => removeRating(tx, u.userId, { titleId: String(x.title_id), scope: x.scope, season: x.season_number, episode: x.episode_number }));
    },
  },
  {
    name: 'import',
    weight: 0.6,
    async run(r, u) {
      // Someone's export (often another user's: everything new here; or this user's own: all there).
      const from = r.pick(users);
      const doc = await exportOf(app, from.token);
      expect(doc.status).toBe(200);
      step(u, 'import', `the export of ${from.username}`);
      const summary = await importNow(em(), { userId: u.userId, source: 'own', fileName: 'media-tracker-export.json', stream: Readable.from([Buffer.from(doc.text)]), maxBytes: Number.MAX_SAFE_INTEGER });
      expect(summary, JSON.stringify(summary)).toMatchObject({ status: 'done', invalid: 0 });
    },
  },
];

/** A ratings item names the title as the bulk items do. */
function toSync(wire: Record<string, unknown>): Record<string, unknown> {
  const { movieDbId, ...rest } = wire;
  return { movie_db_id: movieDbId, ...rest };
}

const TOTAL_WEIGHT = OPS.reduce((n, o) => n + o.weight, 0);
function pickOp(r: Random, ops: Op[] = OPS, total = TOTAL_WEIGHT): Op {
  let x = r.next() * total;
  for (const o of ops) if ((x -= o.weight) < 0) return o;
  return ops.at(-1)!;
}
const BURST_OPS = OPS.filter((o) => o.burst);
const BURST_WEIGHT = BURST_OPS.reduce((n, o) => n + o.weight, 0);

// ---- the check

async function checkAll(where: string): Promise<void> {
  const started = Date.now();
  for (const u of users) {
    const { diff, rows } = await keptAgainstRebuilt(em, u.userId);
    stats.checks++;
    stats.rowsCompared += rowCount(rows);
    if (diff.length > 0) {
      const steps = trace.get(u.userId)!;
      throw new Error(
        `seed ${SEED}, ${where}: the kept figures of ${u.username} differ from the rows.\n` +
          `Steps of ${u.username} since the last check (${steps.length}):\n  ${steps.join('\n  ')}\nDifferences:\n  ${diff.join('\n  ')}`,
      );
    }
    // Independent of the rebuild: the totals count the rows, and the ratings list's counts are the rows'.
    const [held] = await sql<{ watches: number; ratings: number }>(app, 'select (select count(*)::int from watch_history where user_id = $1) as watches, (select count(*)::int from user_rating where user_id = $1) as ratings', [u.userId]);
    expect({ watches: rows.totals.watches, ratings: rows.totals.ratings }).toEqual(held);
    // The split by title type (Trakt's statistics) counts the rows' entries and minutes of each type.
    const [split] = await sql<Record<'movie_watches' | 'movie_minutes' | 'episode_watches' | 'episode_minutes', number>>(
      app,
      `select coalesce(count(*) filter (where t.type = 'movie'), 0)::int as movie_watches, coalesce(sum(${MINUTES}) filter (where t.type = 'movie'), 0)::int as movie_minutes,
         coalesce(count(*) filter (where t.type = 'show'), 0)::int as episode_watches, coalesce(sum(${MINUTES}) filter (where t.type = 'show'), 0)::int as episode_minutes
       from watch_history w join title t on t.id = w.title_id left join episode e on e.id = w.episode_id where w.user_id = $1`,
      [u.userId],
    );
    const { movie_watches, movie_minutes, episode_watches, episode_minutes } = rows.totals;
    expect({ movie_watches, movie_minutes, episode_watches, episode_minutes }).toEqual(split);
    expect([movie_watches + episode_watches, movie_minutes + episode_minutes]).toEqual([rows.totals.watches, rows.totals.minutes]);
    const ratingCounts = await sql<{ category: string; scope: string; n: number }>(
      app,
      'select t.category, r.scope, count(*)::int as n from user_rating r join title t on t.id = r.title_id where r.user_id = $1 group by 1, 2 order by 1, 2',
      [u.userId],
    );
    expect(rows.libraryCounts.filter((c) => c.list === 'ratings').map((c) => ({ category: c.category, scope: c.scope, n: c.n }))).toEqual(ratingCounts);
    // And Up next's columns are the entries' own: the latest watch, the regular episodes, the furthest one.
    const progress = await sql<{ title_id: string; last_watched_at: Date; regular_episodes: number; last_season: number | null; last_episode: number | null }>(
      app,
      `select w.title_id, max(w.watched_at) as last_watched_at, (count(distinct w.episode_id) filter (where e.season_number > 0))::int as regular_episodes,
         (max(array[e.season_number, e.episode_number]) filter (where e.season_number > 0))[1] as last_season,
         (max(array[e.season_number, e.episode_number]) filter (where e.season_number > 0))[2] as last_episode
       from watch_history w left join episode e on e.id = w.episode_id where w.user_id = $1 group by w.title_id order by w.title_id`,
      [u.userId],
    );
    expect(rows.titles.map((t) => ({ title_id: t.title_id, last_watched_at: t.last_watched_at, regular_episodes: t.regular_episodes, last_season: t.last_season, last_episode: t.last_episode }))).toEqual(progress);
    stats.showsInProgress += progress.filter((p) => p.last_season !== null).length;
    trace.set(u.userId, []);
  }
  stats.checkMs += Date.now() - started;
}

beforeAll(async () => {
  app = await startTestApp({ IMPORT_INTERVAL_MS: '0' });
  await seedCatalog(app, { shows: 4 });
  await addSpecial(app);
  // Every fallback of an entry's minutes and of a completion window: one show is anime, one has episodes
  // without a runtime (the show's episode runtime counts) and without an air date (aired, counted first).
  await sql(app, `update title set is_anime = true, category = 'anime' where type = 'show' and movie_db_id = $1`, [FIRST_SHOW + 3]);
  await sql(app, `update episode set runtime_minutes = null where episode_number % 3 = 0 and title_id = (select id from title where type = 'show' and movie_db_id = $1)`, [FIRST_SHOW + 1]);
  await sql(app, `update episode set air_date = null where season_number = 1 and episode_number = 2 and title_id = (select id from title where type = 'show' and movie_db_id = $1)`, [FIRST_SHOW + 2]);
  const titles = await sql<{ id: string; type: 'movie' | 'show'; movie_db_id: number }>(app, 'select id, type, movie_db_id from title order by id');
  const episodes = await sql<{ id: string; title_id: string; season_number: number; episode_number: number; aired: boolean }>(
    app,
    `select id, title_id, season_number, episode_number, (air_date is null or air_date <= (now() at time zone 'UTC')::date) as aired from episode order by title_id, season_number, episode_number`,
  );
  const all = titles.map((t) => ({
    id: String(t.id),
    type: t.type,
    movieDbId: t.movie_db_id,
    episodes: episodes.filter((e) => String(e.title_id) === String(t.id)).map((e) => ({ id: String(e.id), season: e.season_number, episode: e.episode_number, aired: e.aired })),
  }));
  movies = all.filter((t) => t.type === 'movie');
  shows = all.filter((t) => t.type === 'show');
  expect(movies.map((m) => m.movieDbId)).toContain(SPIRITED_AWAY);
  users = [];
  for (let i = 0; i < USERS; i++) users.push(await member(app, `figures_${i}`, [...SCOPES], { official: true }));
  for (const u of users) trace.set(u.userId, []);
  console.info(`figures-property: seed ${SEED} (FIGURES_SEED), ${SEQUENCES} sequences of ${STEPS} steps, ${USERS} users`);
});

afterAll(async () => {
  console.info(`figures-property: seed ${SEED}: ${stats.steps} steps, ${stats.checks} user checks, ${stats.rowsCompared} figure rows compared (${stats.showsInProgress} with a furthest episode; ${(stats.checkMs / 1000).toFixed(1)} s of checks); ${JSON.stringify(stats.ops)}`);
  await app?.stop();
});

describe('kept figures against the rows', () => {
  const r = seededRandom(SEED);
  for (let s = 1; s <= SEQUENCES; s++) {
    it(`sequence ${s}: after every ${CHECK_EVERY} random writes, each user's kept figures equal the rebuilt ones`, async () => {
      const ran = new Set<string>();
      for (let i = 1; i <= STEPS; i++) {
        const u = r.pick(users);
        if (r.next() < 0.1) {
          // Several writes of one user at once.
          const ops = Array.from({ length: r.int(2, 3) }, () => pickOp(r, BURST_OPS, BURST_WEIGHT));
          const runs = ops.map(() => seededRandom(r.int(1, 2 ** 31)));
          trace.get(u.userId)!.push(`at once: ${ops.map((o) => o.name).join(', ')}`);
          await Promise.all(ops.map((o, k) => o.run(runs[k]!, u)));
          for (const o of ops) ran.add(o.name);
        } else {
          const op = pickOp(r);
          await op.run(r, u);
          ran.add(op.name);
        }
        stats.steps++;
        // Every write path in every sequence, whatever the seed: the ones the draw left out go last.
        if (i === STEPS) {
          for (const op of OPS.filter((o) => !ran.has(o.name))) {
            await op.run(r, r.pick(users));
            stats.steps++;
          }
        }
        if (i % CHECK_EVERY === 0 || i === STEPS) await checkAll(`sequence ${s}, step ${i}`);
      }
    });
  }
});
