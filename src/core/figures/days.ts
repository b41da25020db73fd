// The per-day figures and what follows from them: each UTC day's entries and ratings (user_day_figures),
// the weekly challenges and XP of every ISO week (kept as totals in user_figures), and the runs of
// consecutive days with an entry (user_streak_run). A change reads only the days of the weeks it touches
// and the runs next to the days it turns on or off, never the whole history.
import type { EntityManager } from '@mikro-orm/postgresql';
import { totals, type WeekActivity } from './challenges.ts';
import { dayRows, deleteRuns, insertRuns, runsAround, activeDaysBetween, type DayRow } from './days-repository.ts';
import { lockTitleStates } from './lock.ts';
import { addTotals } from './totals.ts';
import type { FigureWrites } from './write-repository.ts';

const DAY_MS = 86_400_000;

/** A day's figures, or what a change adds to them (negative to take away). */
export type DayFigures = { watches: number; movies: number; episodes: number; minutes: number; ratings: number };
export type DayDelta = DayFigures & { day: string };

const ZERO: DayFigures = { watches: 0, movies: 0, episodes: 0, minutes: 0, ratings: 0 };
const FIELDS = Object.keys(ZERO) as (keyof DayFigures)[];

export const dayMs = (day: string) => Date.parse(`${day}T00:00:00Z`);
export const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);
/** The UTC day of a time. */
export const utcDayOf = (at: Date | string) => dayOf(new Date(at).getTime());
/** The Monday of a day's ISO week. */
export const weekOf = (day: string) => {
  const ms = dayMs(day);
  return dayOf(ms - ((new Date(ms).getUTCDay() + 6) % 7) * DAY_MS);
};
const weekDays = (monday: string) => Array.from({ length: 7 }, (_, i) => dayOf(dayMs(monday) + i * DAY_MS));
/** Every day of the ISO weeks of these days: the day rows a change of them reads. */
export const daysOfWeeks = (days: Iterable<string>) => [...new Set([...days].map(weekOf))].flatMap(weekDays);

/** What the days of a week add up to for the weekly challenges (a day with an entry is an active day). */
export function weekActivity(days: readonly DayFigures[]): WeekActivity {
  const week = { movies: 0, episodes: 0, ratings: 0, activeDays: 0 };
  for (const d of days) {
    week.movies += d.movies;
    week.episodes += d.episodes;
    week.ratings += d.ratings;
    if (d.watches > 0) week.activeDays++;
  }
  return week;
}

/** What a week adds to the totals of user_figures: challenges and XP, counting everything, only entries, only ratings. */
export type WeekScore = { challenges: number; xp: number; watch_challenges: number; watch_xp: number; rating_challenges: number; rating_xp: number };

/** A week's challenges completed and XP (the rules of challenges.ts), from its days, in each view. */
export function weekScore(days: readonly DayFigures[]): WeekScore {
  const week = weekActivity(days);
  const all = totals([week]);
  const watches = totals([{ ...week, ratings: 0 }]);
  const ratings = totals([{ movies: 0, episodes: 0, activeDays: 0, ratings: week.ratings }]);
  return {
    challenges: all.challengesCompleted,
    xp: all.xpScore,
    watch_challenges: watches.challengesCompleted,
    watch_xp: watches.xpScore,
    rating_challenges: ratings.challengesCompleted,
    rating_xp: ratings.xpScore,
  };
}

const SCORE_FIELDS = ['challenges', 'xp', 'watch_challenges', 'watch_xp', 'rating_challenges', 'rating_xp'] as const satisfies readonly (keyof WeekScore)[];

/** The sum of week scores (`sign` -1 to take them away). */
export function addScores(into: WeekScore, s: WeekScore, sign = 1): WeekScore {
  for (const f of SCORE_FIELDS) into[f] += sign * s[f];
  return into;
}

export const noScore = (): WeekScore => ({ challenges: 0, xp: 0, watch_challenges: 0, watch_xp: 0, rating_challenges: 0, rating_xp: 0 });

/**
 * Adds the deltas to the user's days into `writes` (writeFigures writes them), with the weekly totals'
 * change. Reads the days of the weeks touched (one statement), unless the caller read them with its own
 * (`read`: the user's rows among daysOfWeeks of the deltas' days). Returns the days turned on or off, whose
 * streak runs the caller rebuilds once the days are written (rebuildRunsAround).
 */
export async function planDayDeltas(tx: EntityManager, userId: string, deltas: readonly DayDelta[], writes: FigureWrites, read?: readonly DayRow[]): Promise<string[]> {
  const touched = new Map<string, DayFigures>();
  for (const d of deltas) {
    const sum = touched.get(d.day) ?? { ...ZERO };
    for (const f of FIELDS) sum[f] += d[f];
    touched.set(d.day, sum);
  }
  for (const [day, d] of touched) if (FIELDS.every((f) => d[f] === 0)) touched.delete(day);
  if (touched.size === 0) return [];
  await lockTitleStates(tx, userId);

  const weeks = [...new Set([...touched.keys()].map(weekOf))];
  const before = new Map<string, DayFigures>((read ?? (await dayRows(tx, userId, daysOfWeeks(touched.keys())))).map((r: DayRow) => [r.day, r]));
  const after = new Map(before);
  const flipped: string[] = [];
  for (const [day, d] of touched) {
    const old = before.get(day) ?? ZERO;
    // Never below zero, and never a refused write: a day can only fall short after the catalog changed a
    // runtime under the kept minutes (a delete then takes away the new runtime); stats:rebuild repairs it.
    const now = Object.fromEntries(FIELDS.map((f) => [f, Math.max(0, old[f] + d[f])])) as DayFigures;
    after.set(day, now);
    if (old.watches > 0 !== now.watches > 0) flipped.push(day);
  }

  const score = noScore();
  for (const monday of weeks) {
    const days = weekDays(monday);
    addScores(score, weekScore(days.map((d) => before.get(d) ?? ZERO)), -1);
    addScores(score, weekScore(days.map((d) => after.get(d) ?? ZERO)));
  }

  const kept = [...touched.keys()].map((day) => ({ day, ...after.get(day)! }));
  writes.days.push(...kept.filter((d) => FIELDS.some((f) => d[f] !== 0)));
  writes.emptyDays.push(...kept.filter((d) => FIELDS.every((f) => d[f] === 0)).map((d) => d.day));
  addTotals(writes.totals, score);
  return flipped;
}

/**
 * Recomputes the runs that the days turned on or off can change: those touching [first - 1, last + 1],
 * from the days with an entry over the span they cover (read as written). A run that grows or splits is
 * replaced whole.
 */
export async function rebuildRunsAround(tx: EntityManager, userId: string, days: string[]): Promise<void> {
  if (days.length === 0) return;
  const sorted = days.sort();
  let from = dayOf(dayMs(sorted[0]!) - DAY_MS);
  let to = dayOf(dayMs(sorted.at(-1)!) + DAY_MS);
  const runs = await runsAround(tx, userId, from, to);
  for (const r of runs) {
    if (r.first_day < from) from = r.first_day;
    if (r.last_day > to) to = r.last_day;
  }
  await deleteRuns(tx, userId, runs.map((r) => r.first_day));
  await insertRuns(tx, userId, islands(await activeDaysBetween(tx, userId, from, to)));
}

/** Runs of consecutive days in sorted days ('YYYY-MM-DD'). */
export function islands(days: readonly string[]): { firstDay: string; lastDay: string; days: number }[] {
  const out: { firstDay: string; lastDay: string; days: number }[] = [];
  for (const day of days) {
    const last = out.at(-1);
    if (last && dayMs(day) - dayMs(last.lastDay) === DAY_MS) {
      last.lastDay = day;
      last.days++;
    } else out.push({ firstDay: day, lastDay: day, days: 1 });
  }
  return out;
}
