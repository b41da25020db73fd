// GET /me/stats as of `now`: the user's totals over their whole history (kept on write), the longest
// streak, shows completed, and the last twelve UTC months (this one included) by month, by weekday and
// by genre. Read from the kept figures only: at most a year of day rows and a year of genre rows.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { ProfilePart } from '../actor-visibility.ts';
import { utcDayOf } from '../figures/days.ts';
import { longestStreak, showsCompleted } from '../figures/read.ts';
import { userFigures } from '../figures/totals.ts';
import type { UserStats } from './schemas.ts';
import { daysFrom, genreCountsFrom } from './stats-repository.ts';

const STATS_MONTHS = 12;

/** The first days of the last STATS_MONTHS UTC months, oldest first, ending with `now`'s. */
function lastMonths(now: Date): string[] {
  return Array.from({ length: STATS_MONTHS }, (_, i) => new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - (STATS_MONTHS - 1 - i), 1)).toISOString().slice(0, 10));
}

/** `see`: the parts the token may read; what it may not read counts as nothing (ratings: null). */
export async function userStats(em: EntityManager, userId: string, now: Date, see: Pick<Record<ProfilePart, boolean>, 'history' | 'ratings'>): Promise<UserStats> {
  const months = lastMonths(now);
  const today = utcDayOf(now);
  const totals = await userFigures(em, userId);
  const byMonth = new Map(months.map((m) => [m.slice(0, 7), { watches: 0, minutes: 0 }]));
  const byWeekday = Array.from({ length: 7 }, () => ({ watches: 0, minutes: 0 }));
  let genres: { name: string; count: number }[] = [];
  if (see.history) {
    for (const d of await daysFrom(em, userId, months[0]!)) {
      if (d.day > today) continue;
      const month = byMonth.get(d.day.slice(0, 7));
      if (month) {
        month.watches += d.watches;
        month.minutes += d.minutes;
      }
      // ISO weekday order: Monday first.
      const weekday = byWeekday[(new Date(`${d.day}T00:00:00Z`).getUTCDay() + 6) % 7]!;
      weekday.watches += d.watches;
      weekday.minutes += d.minutes;
    }
    genres = (await genreCountsFrom(em, userId, months[0]!))
      .filter((g) => g.watches > 0)
      .map((g) => ({ name: g.genre, count: g.watches }))
      .sort((a, b) => b.count - a.count || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }
  const h = see.history;
  return {
    watches: h ? totals.watches : 0,
    minutes: h ? totals.minutes : 0,
    movies: h ? totals.movies : 0,
    shows: h ? totals.shows : 0,
    episodes: h ? totals.episodes : 0,
    animeTitles: h ? totals.anime_titles : 0,
    showsCompleted: h ? await showsCompleted(em, userId) : 0,
    longestStreak: h ? await longestStreak(em, userId) : 0,
    ratings: see.ratings ? totals.ratings : null,
    months: [...byMonth].map(([month, m]) => ({ month, ...m })),
    weekdays: byWeekday.map((w, i) => ({ weekday: i + 1, ...w })),
    genres,
  };
}
