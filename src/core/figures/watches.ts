// What a change of history entries moves in the kept figures: the days (entries, movie and episode
// entries, minutes), this month's genres, each year's titles, the titles touched and the totals. The one entry for every
// writer of watch_history (logging, edits, deletes), called in the writer's transaction after the rows
// are written, with the rows added (+1) and removed (-1); an edit of the time is one of each.
//
// Statements: what each change counts as with the days of the weeks it touches, the titles recounted (two
// reads), then one write of every figure (write-repository.ts); and, only when the change takes away
// (a delete, an edit), the removal of counts it left at 0, and, only when a day gains its first entry or
// loses its last, the streak runs around it.
import type { EntityManager } from '@mikro-orm/postgresql';
import { daysOfWeeks, planDayDeltas, rebuildRunsAround, utcDayOf, type DayDelta } from './days.ts';
import { lockTitleStates } from './lock.ts';
import { removeEmptyMonthGenres, watchFactsAndDays } from './watches-repository.ts';
import { planTitleFigures } from './titles.ts';
import { noFigureWrites, writeFigures, type MonthGenreDelta } from './write-repository.ts';
import { removeEmptyYearTitles, type YearTitleDelta } from './year-titles-repository.ts';

export type WatchRowChange = { titleId: string; episodeId: string | null; watchedAt: Date | string; runtimeMinutes: number | null; sign: 1 | -1 };

export async function applyWatchFigures(tx: EntityManager, userId: string, changes: readonly WatchRowChange[]): Promise<void> {
  if (changes.length === 0) return;
  await lockTitleStates(tx, userId);
  const { facts, days: read } = await watchFactsAndDays(tx, userId, changes, daysOfWeeks(changes.map((c) => utcDayOf(c.watchedAt))));
  const days: DayDelta[] = [];
  const genres = new Map<string, MonthGenreDelta>();
  const yearTitles = new Map<string, YearTitleDelta>();
  for (const f of facts) {
    const c = changes[f.idx]!;
    const day = utcDayOf(c.watchedAt);
    days.push({ day, watches: c.sign, movies: f.type === 'movie' ? c.sign : 0, episodes: f.type === 'show' ? c.sign : 0, minutes: c.sign * f.minutes, ratings: 0 });
    const month = `${day.slice(0, 7)}-01`;
    for (const genre of f.genres) {
      const key = `${month}/${genre}`;
      const g = genres.get(key) ?? { month, genre, watches: 0 };
      g.watches += c.sign;
      genres.set(key, g);
    }
    const year = Number(day.slice(0, 4));
    const yt = yearTitles.get(`${year}/${c.titleId}`) ?? { year, title_id: c.titleId, watches: 0, minutes: 0 };
    yt.watches += c.sign;
    yt.minutes += c.sign * f.minutes;
    yearTitles.set(`${year}/${c.titleId}`, yt);
  }
  const writes = noFigureWrites();
  const flipped = await planDayDeltas(tx, userId, days, writes, read);
  writes.genres = [...genres.values()].filter((g) => g.watches !== 0);
  writes.yearTitles = [...yearTitles.values()].filter((y) => y.watches !== 0 || y.minutes !== 0);
  await planTitleFigures(tx, userId, [...new Set(changes.map((c) => c.titleId))], writes);
  await writeFigures(tx, userId, writes);
  // Only a count taken from can reach 0.
  const takenGenres = writes.genres.filter((g) => g.watches < 0);
  if (takenGenres.length) await removeEmptyMonthGenres(tx, userId, [...new Set(takenGenres.map((g) => g.month))]);
  const takenYearTitles = writes.yearTitles.filter((y) => y.watches < 0);
  if (takenYearTitles.length) await removeEmptyYearTitles(tx, userId, takenYearTitles);
  await rebuildRunsAround(tx, userId, flipped);
}
