// The watch-history statements: the entries as readers see them, the history lock, the duplicate probe
// and the insert of new watches with their change records, edits, and what logging and the show-status
// rules read of the catalog.
import type { EntityManager } from '@mikro-orm/postgresql';
import { expressionBuilder, type Kysely, type QueryCreator } from 'kysely';
import { db } from '../db/query-builder.ts';
import type { Tables } from '../schema/index.ts';
import { compiledOnce } from '../db/compiled-once.ts';
import { offline } from '../db/compile.ts';

// ---- entries as read

/** An episode has aired from its air date (UTC); an episode without a date counts as aired. */
export function airedEpisode() {
  const eb = expressionBuilder<{ e: Tables['episode'] }, 'e'>();
  const utcToday = eb.cast<string>(eb.fn('timezone', [eb.val('UTC'), eb.fn('now')]), 'date');
  return eb.or([eb('e.air_date', 'is', null), eb('e.air_date', '<=', utcToday)]);
}

/** watch_history `w` with its title `t` and episode `e`: the columns of a history item. */
function historyEntries(k: Kysely<Tables>) {
  return k
    .selectFrom('watch_history as w')
    .innerJoin('title as t', 't.id', 'w.title_id')
    .leftJoin('episode as e', 'e.id', 'w.episode_id')
    .select((eb) => [
      'w.id',
      'w.episode_id',
      't.movie_db_id',
      't.type',
      't.is_anime',
      't.name',
      't.year',
      't.poster_path',
      't.backdrop_path',
      'w.season_number',
      'w.episode_number',
      'e.name as episode_title',
      'e.still_path',
      'w.runtime_minutes',
      // watched_at to the microsecond, for keyset cursors (a JS Date keeps only milliseconds), as text:
      // parsing PostgreSQL's timestamp text into a Date was the largest cost of presenting a page.
      eb.fn<string>('to_char', [eb.fn('timezone', [eb.val('UTC'), eb.ref('w.watched_at')]), eb.val('YYYY-MM-DD"T"HH24:MI:SS.US"Z"')]).as('position_at'),
    ]);
}

export type HistoryFilters = {
  type?: 'movie' | 'show' | 'anime' | undefined;
  startAt?: Date | undefined;
  endAt?: Date | undefined;
  /** The last entry of the page before: its watched_at to the microsecond, and its id. */
  after: [string, string] | null;
  /** Rows to read: the page size and one more. */
  rows: number;
};

/** A page of the user's history, newest first: one text per combination of filters (16). */
export function historyPageQuery(k: Kysely<Tables>, userId: string, f: HistoryFilters) {
  let q = historyEntries(k).where('w.user_id', '=', userId);
  if (f.type) q = q.where('t.category', '=', f.type);
  if (f.startAt) q = q.where('w.watched_at', '>=', f.startAt);
  if (f.endAt) q = q.where('w.watched_at', '<', f.endAt);
  const after = f.after;
  if (after) {
    q = q.where((eb) =>
      eb(eb.refTuple('w.watched_at', 'w.id'), '<', eb.tuple(eb.cast<Date>(eb.val(after[0]), 'timestamptz'), eb.cast<string>(eb.val(after[1]), 'bigint'))),
    );
  }
  return q.orderBy('w.watched_at', 'desc').orderBy('w.id', 'desc').limit(f.rows);
}

/** historyPageQuery's statement, its text built once per combination of filters (compiled-once.ts). */
export const historyPageStatement = compiledOnce(
  ({ userId, filters }: { userId: string; filters: HistoryFilters }) => historyPageQuery(offline, userId, filters),
  ({ userId, filters: f }, value) => ({
    userId: value(userId),
    filters: {
      type: f.type,
      startAt: f.startAt && value(f.startAt),
      endAt: f.endAt && value(f.endAt),
      after: f.after && ([value(f.after[0]), value(f.after[1])] as [string, string]),
      rows: value(f.rows),
    },
  }),
);

export type HistoryEntryRow = Awaited<ReturnType<typeof historyRowsByIds>>[number];

/** The user's entries with these ids, in no particular order. */
export function historyRowsByIds(em: EntityManager, userId: string, ids: string[]) {
  return historyEntries(db(em))
    .where('w.user_id', '=', userId)
    .where((eb) => eb('w.id', '=', eb.fn.any(eb.val(ids))))
    .execute();
}

// ---- logging watches

/** The name of the lock that serialises writes of one user's watch history. */
export const userHistoryLock = (userId: string) => `watch_history:${userId}`;

/** The JSON array `rows` (one parameter, whatever their number) as the table `j`, one row per element. */
/** As jsonElements, from the array's JSON text (a statement compiled once sends the text as its parameter). */
function jsonTextElements<R>(k: QueryCreator<Tables>, json: string) {
  return k.selectFrom((eb) => eb.fn<{ value: R }>('jsonb_array_elements', [eb.cast<R[]>(eb.val(json), 'jsonb')]).as('j'));
}

export type ProbeInput = { idx: number; title_id: string; episode_id: string | null; watched_at: string };

/**
 * For each watch: the entry already logged within `windowSeconds` of it (the nearest; null when none),
 * and what its history item shows of the title and episode.
 */
export function probeWatchesQuery(k: Kysely<Tables>, userId: string, probe: ProbeInput[], windowSeconds: number) {
  return probeQuery(k, userId, JSON.stringify(probe), windowSeconds);
}

function probeQuery(k: Kysely<Tables>, userId: string, probeJson: string, windowSeconds: number) {
  const watches = jsonTextElements<ProbeInput>(k, probeJson).select((eb) => {
    const field = (key: keyof ProbeInput) => eb.ref('j.value', '->>').key(key);
    return [
      eb.cast<number>(field('idx'), 'integer').as('idx'),
      eb.cast<string>(field('title_id'), 'bigint').as('title_id'),
      eb.cast<string | null>(field('episode_id'), 'bigint').as('episode_id'),
      eb.cast<Date>(field('watched_at'), 'timestamptz').as('watched_at'),
    ];
  });
  return k
    .selectFrom(watches.as('r'))
    .innerJoin('title as t', 't.id', 'r.title_id')
    .leftJoin('episode as e', 'e.id', 'r.episode_id')
    .leftJoinLateral(
      (eb) =>
        eb
          .selectFrom('watch_history as w')
          .select('w.id')
          .where('w.user_id', '=', userId)
          .whereRef('w.title_id', '=', 'r.title_id')
          .where((eb) => eb('w.episode_id', 'is not distinct from', eb.ref('r.episode_id')))
          .where((eb) => {
            // make_interval's positional arguments: years, months, weeks, days, hours, minutes, seconds.
            const window = () => eb.fn<Date>('make_interval', [eb.lit(0), eb.lit(0), eb.lit(0), eb.lit(0), eb.lit(0), eb.lit(0), eb.val(windowSeconds)]);
            return eb.between('w.watched_at', eb('r.watched_at', '-', window()), eb('r.watched_at', '+', window()));
          })
          .orderBy((eb) => eb.fn('abs', [eb.fn('date_part', [eb.val('epoch'), eb('w.watched_at', '-', eb.ref('r.watched_at'))])]))
          .orderBy('w.id')
          .limit(1)
          .as('h'),
      (join) => join.onTrue(),
    )
    .select(['r.idx', 'h.id as existing_id', 't.movie_db_id', 't.type', 't.is_anime', 't.name', 't.year', 't.poster_path', 't.backdrop_path', 'e.name as episode_title', 'e.still_path']);
}

export type ProbedWatch = Awaited<ReturnType<ReturnType<typeof probeWatchesQuery>['execute']>>[number];

/** The probe, its text built once (compiled-once.ts): building and compiling it cost more than running it. */
const probeOnce = compiledOnce(
  (p: { userId: string; json: string; windowSeconds: number }) => probeQuery(offline, p.userId, p.json, p.windowSeconds),
  (p, value) => ({ userId: value(p.userId), json: value(p.json), windowSeconds: value(p.windowSeconds) }),
);

export async function probeWatches(tx: EntityManager, userId: string, probe: ProbeInput[], windowSeconds: number): Promise<ProbedWatch[]> {
  return (await db(tx).executeQuery(probeOnce({ userId, json: JSON.stringify(probe), windowSeconds }))).rows;
}

export type NewWatchRow = {
  title_id: string;
  episode_id: string | null;
  season_number: number | null;
  episode_number: number | null;
  watched_at: string;
  runtime_minutes: number | null;
  source: 'api' | 'sync' | 'playback';
  client_id: string | null;
  /** The entry's change record without its id (the database gives the id). */
  data: Record<string, unknown>;
};

/**
 * Inserts the watches (ids in the order given) and their change records (resource `history`: `data`
 * and the new id), and answers each new entry with whether the show-status rules can move its title
 * (a show, or a movie the user has planned): one round trip, and no status query for the many batches
 * that need none.
 */
export function insertWatchesQuery(k: Kysely<Tables>, userId: string, rows: NewWatchRow[]) {
  return insertQuery(k, userId, numberedJson(rows));
}

type NumberedWatchRow = NewWatchRow & { idx: number };
/** The record's path that takes the new id (one array: a statement compiled once sends this very value). */
const ID_PATH = ['id'];
const numberedJson = (rows: NewWatchRow[]) => JSON.stringify(rows.map((r, idx): NumberedWatchRow => ({ idx, ...r })));

function insertQuery(k: Kysely<Tables>, userId: string, rowsJson: string) {
  return k
    .with('r', (k) =>
      jsonTextElements<NumberedWatchRow>(k, rowsJson).select((eb) => {
        const field = (key: keyof NumberedWatchRow) => eb.ref('j.value', '->>').key(key);
        return [
          eb.cast<number>(field('idx'), 'integer').as('idx'),
          eb.cast<string>(field('title_id'), 'bigint').as('title_id'),
          eb.cast<string | null>(field('episode_id'), 'bigint').as('episode_id'),
          eb.cast<number | null>(field('season_number'), 'integer').as('season_number'),
          eb.cast<number | null>(field('episode_number'), 'integer').as('episode_number'),
          eb.cast<Date>(field('watched_at'), 'timestamptz').as('watched_at'),
          eb.cast<number | null>(field('runtime_minutes'), 'integer').as('runtime_minutes'),
          field('source').$castTo<NewWatchRow['source']>().as('source'),
          field('client_id').$castTo<string | null>().as('client_id'),
          eb.ref('j.value', '->').key('data').as('data'),
        ];
      }),
    )
    .with('ins', (k) =>
      k
        .insertInto('watch_history')
        .columns(['user_id', 'title_id', 'episode_id', 'season_number', 'episode_number', 'watched_at', 'runtime_minutes', 'source', 'client_id'])
        .expression(
          k
            .selectFrom('r')
            .select((eb) => [eb.cast(eb.val(userId), 'uuid').as('user_id'), 'r.title_id', 'r.episode_id', 'r.season_number', 'r.episode_number', 'r.watched_at', 'r.runtime_minutes', 'r.source', 'r.client_id'])
            .orderBy('r.idx'),
        )
        .returning(['id', 'title_id', 'episode_id', 'watched_at']),
    )
    .with('changes', (k) =>
      k
        .insertInto('change_log')
        .columns(['user_id', 'resource', 'resource_id', 'op', 'data'])
        .expression(
          k
            .selectFrom('ins')
            // Within one call no two new watches share title, episode and time (logWatches skips them).
            .innerJoin('r', (join) =>
              join
                .onRef('r.title_id', '=', 'ins.title_id')
                .on((eb) => eb('r.episode_id', 'is not distinct from', eb.ref('ins.episode_id')))
                .onRef('r.watched_at', '=', 'ins.watched_at'),
            )
            .select((eb) => [
              eb.cast(eb.val(userId), 'uuid').as('user_id'),
              eb.cast(eb.val('history'), 'text').as('resource'),
              eb.cast('ins.id', 'text').as('resource_id'),
              eb.cast(eb.val('upsert'), 'text').as('op'),
              eb.fn('jsonb_set', ['r.data', eb.val(ID_PATH), eb.fn('to_jsonb', ['ins.id'])]).as('data'),
            ])
            .orderBy('ins.id'),
        ),
    )
    .selectFrom('ins')
    .innerJoin('title as t', 't.id', 'ins.title_id')
    .select((eb) => [
      'ins.id',
      'ins.title_id',
      'ins.episode_id',
      'ins.watched_at',
      eb
        .or([
          eb('t.type', '=', 'show'),
          eb.exists(
            eb
              .selectFrom('user_title_state as st')
              .select(eb.lit(1).as('one'))
              .where('st.user_id', '=', userId)
              .whereRef('st.title_id', '=', 'ins.title_id')
              .where('st.show_status', '=', 'planned'),
          ),
        ])
        .as('status_rules'),
    ])
    .orderBy('ins.id');
}

export type LoggedWatch = Awaited<ReturnType<ReturnType<typeof insertWatchesQuery>['execute']>>[number];

/** The insert, its text built once (compiled-once.ts), as the probe's. */
const insertOnce = compiledOnce(
  (p: { userId: string; json: string }) => insertQuery(offline, p.userId, p.json),
  (p, value) => ({ userId: value(p.userId), json: value(p.json) }),
);

export async function insertWatches(tx: EntityManager, userId: string, rows: NewWatchRow[]): Promise<LoggedWatch[]> {
  return (await db(tx).executeQuery(insertOnce({ userId, json: numberedJson(rows) }))).rows;
}

// ---- editing entries

/** What the kept figures need of an entry (its title, episode, time and logged runtime). */
const entryFacts = ['title_id', 'episode_id', 'watched_at', 'runtime_minutes'] as const;

/** The user's entry as it is, before an edit (the history lock keeps it so until the edit). */
export function entryById(tx: EntityManager, userId: string, id: number) {
  return db(tx).selectFrom('watch_history').select(['id', ...entryFacts]).where('id', '=', String(id)).where('user_id', '=', userId).executeTakeFirst();
}

export function setWatchedAt(tx: EntityManager, userId: string, id: number, watchedAt: Date) {
  return db(tx).updateTable('watch_history').set({ watched_at: watchedAt }).where('id', '=', String(id)).where('user_id', '=', userId).returning(['id', ...entryFacts]).executeTakeFirst();
}

export function deleteEntry(tx: EntityManager, userId: string, id: number) {
  return db(tx).deleteFrom('watch_history').where('id', '=', String(id)).where('user_id', '=', userId).returning(['id', ...entryFacts]).executeTakeFirst();
}

// ---- what logging and the show-status rules read

/** Every episode of the season (null: of all regular seasons), in order, with whether it has aired. */
export function showEpisodes(em: EntityManager, titleId: string, season: number | null) {
  return db(em)
    .selectFrom('episode as e')
    .select(['e.id', 'e.season_number', 'e.episode_number', 'e.runtime_minutes', airedEpisode().as('aired')])
    .where('e.title_id', '=', titleId)
    .where((eb) => (season === null ? eb('e.season_number', '>', 0) : eb('e.season_number', '=', season)))
    .orderBy('e.season_number')
    .orderBy('e.episode_number')
    .execute();
}

/**
 * Per title that the rules can move (a show, or a movie the user has planned): its status, and its aired
 * regular episodes and how many of them the user watched (movies without a status skip the counting).
 */
export function watchProgress(tx: EntityManager, userId: string, titleIds: string[]) {
  return db(tx)
    .selectFrom('title as t')
    .leftJoin('user_title_state as st', (join) => join.on('st.user_id', '=', userId).onRef('st.title_id', '=', 't.id'))
    .select((eb) => [
      't.id as title_id',
      't.type',
      't.movie_db_id',
      'st.show_status',
      'st.show_status_at',
      eb
        .selectFrom('episode as e')
        .select((eb) => eb.cast<number>(eb.fn.countAll(), 'integer').as('n'))
        .whereRef('e.title_id', '=', 't.id')
        .where('e.season_number', '>', 0)
        .where(airedEpisode())
        .as('aired'),
      eb
        .selectFrom('watch_history as w')
        .innerJoin('episode as e', 'e.id', 'w.episode_id')
        .select((eb) => eb.cast<number>(eb.fn.count('w.episode_id').distinct(), 'integer').as('n'))
        .where('w.user_id', '=', userId)
        .whereRef('w.title_id', '=', 't.id')
        .where('e.season_number', '>', 0)
        .where(airedEpisode())
        .as('watched'),
    ])
    .where((eb) => eb('t.id', '=', eb.fn.any(eb.val(titleIds))))
    .where((eb) => eb.or([eb('t.type', '=', 'show'), eb('st.show_status', '=', 'planned')]))
    .execute();
}
