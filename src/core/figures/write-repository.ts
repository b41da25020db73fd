// The one statement that writes a change's kept figures: the days it moved (their new values, and the
// days left empty), this month's genres and each year's titles it added to, the titles it recounted
// (their rows whole, and the rows left without an entry), and the totals' deltas. A write of figures was
// one statement per table; together they are one round trip, whatever the change. Each part travels as
// one JSON parameter (recordset.ts), so the text is the same for every change and is parsed once per
// connection (core/db/prepared.ts). Counts a change takes from (a delete, an edit) can reach 0: those
// rows are removed after this statement by the callers that take from them, since a statement does not
// see its own writes.
import type { EntityManager } from '@mikro-orm/postgresql';
import { compiledOnce } from '../db/compiled-once.ts';
import { offline } from '../db/compile.ts';
import { db } from '../db/query-builder.ts';
import { recordset } from '../db/recordset.ts';
import type { DayRow } from './days-repository.ts';
import { TOTAL_FIELDS, type TotalsDelta } from './totals.ts';
import type { YearTitleDelta } from './year-titles-repository.ts';

/** A title's row as its entries make it (user_title_figures without the user). */
type TitleFiguresRow = {
  title_id: string;
  watches: number;
  minutes: number;
  episodes: number;
  regular_episodes: number;
  last_watched_at: Date | string;
  completed_from: string | null;
  completed_until: string | null;
  last_season: number | null;
  last_episode: number | null;
};

export type MonthGenreDelta = { month: string; genre: string; watches: number };

/** What a change writes to the user's kept figures. */
export type FigureWrites = {
  /** Days' new figures, and the days left with none. */
  days: DayRow[];
  emptyDays: string[];
  /** Deltas of the month genre counts and of the per-year title rows. */
  genres: MonthGenreDelta[];
  yearTitles: YearTitleDelta[];
  /** Titles' rows whole, and the titles left without an entry. */
  titles: TitleFiguresRow[];
  untitled: string[];
  totals: TotalsDelta;
};

export const noFigureWrites = (): FigureWrites => ({ days: [], emptyDays: [], genres: [], yearTitles: [], titles: [], untitled: [], totals: {} });

const isEmpty = (w: FigureWrites) =>
  !w.days.length && !w.emptyDays.length && !w.genres.length && !w.yearTitles.length && !w.titles.length && !w.untitled.length && TOTAL_FIELDS.every((f) => !w.totals[f]);

export async function writeFigures(tx: EntityManager, userId: string, w: FigureWrites): Promise<void> {
  if (isEmpty(w)) return;
  const totals = TOTAL_FIELDS.some((f) => w.totals[f]) ? [Object.fromEntries(TOTAL_FIELDS.map((f) => [f, w.totals[f] ?? 0]))] : [];
  await db(tx).executeQuery(
    writeOnce({
      userId,
      days: JSON.stringify(w.days),
      emptyDays: w.emptyDays,
      genres: JSON.stringify(w.genres),
      yearTitles: JSON.stringify(w.yearTitles),
      titles: JSON.stringify(w.titles),
      untitled: w.untitled,
      totals: JSON.stringify(totals),
    }),
  );
}

/** Every part as its JSON text (or, for the removals, an array): one shape, so one text (compiled-once.ts). */
type WriteParts = { userId: string; days: string; emptyDays: string[]; genres: string; yearTitles: string; titles: string; untitled: string[]; totals: string };

const writeOnce = compiledOnce(
  (p: WriteParts) => writeFiguresQuery(p),
  (p, value) => ({
    userId: value(p.userId),
    days: value(p.days),
    emptyDays: value(p.emptyDays),
    genres: value(p.genres),
    yearTitles: value(p.yearTitles),
    titles: value(p.titles),
    untitled: value(p.untitled),
    totals: value(p.totals),
  }),
);

function writeFiguresQuery(w: WriteParts) {
  const { userId, totals } = w;
  return offline
    .with('days', (k) =>
      k
        .insertInto('user_day_figures')
        .columns(['user_id', 'day', 'watches', 'movies', 'episodes', 'minutes', 'ratings'])
        .expression((eb) =>
          eb
            .selectFrom(recordset<DayRow, 'r'>(w.days, 'r', 'day date, watches integer, movies integer, episodes integer, minutes integer, ratings integer'))
            .select((eb) => [eb.cast<string>(eb.val(userId), 'uuid').as('user_id'), 'r.day', 'r.watches', 'r.movies', 'r.episodes', 'r.minutes', 'r.ratings']),
        )
        .onConflict((oc) =>
          oc.columns(['user_id', 'day']).doUpdateSet((eb) => ({
            watches: eb.ref('excluded.watches'),
            movies: eb.ref('excluded.movies'),
            episodes: eb.ref('excluded.episodes'),
            minutes: eb.ref('excluded.minutes'),
            ratings: eb.ref('excluded.ratings'),
          })),
        ),
    )
    .with('empty_days', (k) =>
      k
        .deleteFrom('user_day_figures')
        .where('user_id', '=', userId)
        .where((eb) => eb('day', '=', eb.fn.any(eb.val(w.emptyDays)))),
    )
    .with('genres', (k) =>
      k
        .insertInto('user_month_genre')
        .columns(['user_id', 'month', 'genre', 'watches'])
        .expression((eb) =>
          eb
            .selectFrom(recordset<MonthGenreDelta, 'r'>(w.genres, 'r', 'month date, genre text, watches integer'))
            .select((eb) => [eb.cast<string>(eb.val(userId), 'uuid').as('user_id'), 'r.month', 'r.genre', 'r.watches']),
        )
        .onConflict((oc) => oc.columns(['user_id', 'month', 'genre']).doUpdateSet((eb) => ({ watches: eb('user_month_genre.watches', '+', eb.ref('excluded.watches')) }))),
    )
    .with('year_titles', (k) =>
      k
        .insertInto('user_year_title')
        .columns(['user_id', 'year', 'title_id', 'watches', 'minutes'])
        .expression((eb) =>
          eb
            .selectFrom(recordset<YearTitleDelta, 'r'>(w.yearTitles, 'r', 'year integer, title_id bigint, watches integer, minutes integer'))
            .select((eb) => [eb.cast<string>(eb.val(userId), 'uuid').as('user_id'), 'r.year', 'r.title_id', 'r.watches', 'r.minutes']),
        )
        .onConflict((oc) =>
          oc.columns(['user_id', 'year', 'title_id']).doUpdateSet((eb) => ({
            watches: eb('user_year_title.watches', '+', eb.ref('excluded.watches')),
            // Never below zero: minutes fall short only after the catalog changed a runtime under them (as a
            // day's do); stats:rebuild repairs them.
            minutes: eb.fn('greatest', [eb.lit(0), eb('user_year_title.minutes', '+', eb.ref('excluded.minutes'))]),
          })),
        ),
    )
    .with('titles', (k) =>
      k
        .insertInto('user_title_figures')
        .columns(['user_id', 'title_id', 'watches', 'minutes', 'episodes', 'regular_episodes', 'last_watched_at', 'completed_from', 'completed_until', 'last_season', 'last_episode'])
        .expression((eb) =>
          eb
            .selectFrom(
              recordset<TitleFiguresRow, 'r'>(
                w.titles,
                'r',
                'title_id bigint, watches integer, minutes integer, episodes integer, regular_episodes integer, last_watched_at timestamptz, completed_from date, completed_until date, last_season integer, last_episode integer',
              ),
            )
            .select((eb) => [
              eb.cast<string>(eb.val(userId), 'uuid').as('user_id'),
              'r.title_id',
              'r.watches',
              'r.minutes',
              'r.episodes',
              'r.regular_episodes',
              'r.last_watched_at',
              'r.completed_from',
              'r.completed_until',
              'r.last_season',
              'r.last_episode',
            ]),
        )
        .onConflict((oc) =>
          oc.columns(['user_id', 'title_id']).doUpdateSet((eb) => ({
            watches: eb.ref('excluded.watches'),
            minutes: eb.ref('excluded.minutes'),
            episodes: eb.ref('excluded.episodes'),
            regular_episodes: eb.ref('excluded.regular_episodes'),
            last_watched_at: eb.ref('excluded.last_watched_at'),
            completed_from: eb.ref('excluded.completed_from'),
            completed_until: eb.ref('excluded.completed_until'),
            last_season: eb.ref('excluded.last_season'),
            last_episode: eb.ref('excluded.last_episode'),
          })),
        ),
    )
    .with('untitled', (k) =>
      k
        .deleteFrom('user_title_figures')
        .where('user_id', '=', userId)
        .where((eb) => eb('title_id', '=', eb.fn.any(eb.val(w.untitled)))),
    )
    .with('totals', (k) =>
      k
        .insertInto('user_figures')
        .columns(['user_id', ...TOTAL_FIELDS])
        .expression((eb) =>
          eb
            .selectFrom(recordset<Record<(typeof TOTAL_FIELDS)[number], number>, 'r'>(totals, 'r', TOTAL_FIELDS.map((f) => `${f} integer`).join(', ')))
            .select((eb) => [eb.cast<string>(eb.val(userId), 'uuid').as('user_id'), ...TOTAL_FIELDS.map((f) => `r.${f}` as const)]),
        )
        .onConflict((oc) => oc.column('user_id').doUpdateSet((eb) => Object.fromEntries(TOTAL_FIELDS.map((f) => [f, eb(eb.ref(`user_figures.${f}`), '+', eb.ref(`excluded.${f}`))])))),
    )
    .selectNoFrom((eb) => eb.lit(1).as('written'));
}
