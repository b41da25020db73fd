// GET /me/year-in-review: a UTC calendar year's figures as of `now`, read from the figures kept on write
// only: the year's day rows (at most 366: totals, the busiest day, weekday and month), its twelve months'
// genre rows, the streak runs that touch it (clipped to it), its top titles through user_year_title's
// index, and its first and latest watch (one index lookup each). What lies after `now` (logged ahead of
// the clock within the skew allowance, or a pinned clock) is read from those few entries and ratings and
// taken away, as the community statistics do, so the figures of this year are those of "so far".
import type { EntityManager } from '@mikro-orm/postgresql';
import { toCatalogItem } from '../catalog/present.ts';
import { dayMs, dayOf, utcDayOf, type DayFigures } from '../figures/days.ts';
import { daysBetween, runsAround } from '../figures/days-repository.ts';
import { historyItemsByIds } from '../library/history-items.ts';
import { entriesBetween, genreCountsFrom, ratingsBetween } from './stats-repository.ts';
import { edgeEntryId, topYearTitles } from './year-in-review-repository.ts';
import { TOP_GENRES, TOP_TITLES, type YearInReview } from './year-in-review-schema.ts';

const DAY_MS = 86_400_000;

type Tally = { watches: number; minutes: number };

/** The busiest of tallies in their order: the most watches, then the most minutes, then the first. */
function busiest<T extends Tally>(tallies: Iterable<T>): T | null {
  let best: T | null = null;
  for (const t of tallies) {
    if (t.watches === 0) continue;
    if (!best || t.watches > best.watches || (t.watches === best.watches && t.minutes > best.minutes)) best = t;
  }
  return best;
}

/** ISO weekday of a UTC day: 1 Monday to 7 Sunday. */
const isoWeekday = (day: string) => ((new Date(dayMs(day)).getUTCDay() + 6) % 7) + 1;

export async function yearInReview(em: EntityManager, userId: string, year: number, now: Date, imageBaseUrl: string): Promise<YearInReview> {
  const first = `${year}-01-01`;
  const last = `${year}-12-31`;
  const start = new Date(dayMs(first));
  const end = new Date(dayMs(`${year + 1}-01-01`));
  const today = utcDayOf(now);
  const inYear = (at: Date) => at >= start && at < end;
  // Entries and ratings after now (none when the year is over): taken away from what the rows keep.
  const later = end > now ? (await entriesBetween(em, userId, now, end)).filter((e) => inYear(e.watched_at)) : [];
  const laterRatings = end > now ? (await ratingsBetween(em, userId, now, end)).filter((r) => inYear(r.rated_at)) : [];

  const days = new Map<string, DayFigures>();
  for (const d of await daysBetween(em, userId, first, last)) if (d.day <= today) days.set(d.day, { ...d });
  // Only today can hold rows after now among the days kept (later days were left out whole).
  for (const e of later) {
    const d = days.get(utcDayOf(e.watched_at));
    if (!d) continue;
    d.watches--;
    d.movies -= Number(e.type === 'movie');
    d.episodes -= Number(e.type === 'show');
    d.minutes = Math.max(0, d.minutes - e.minutes);
  }
  for (const r of laterRatings) {
    const d = days.get(utcDayOf(r.rated_at));
    if (d) d.ratings--;
  }

  const totals = { watches: 0, minutes: 0, movieWatches: 0, episodeWatches: 0, activeDays: 0, ratings: 0 };
  const months = new Map<string, { month: string } & Tally>();
  const weekdays = Array.from({ length: 7 }, (_, i) => ({ weekday: i + 1, watches: 0, minutes: 0 }));
  const dated: ({ date: string; weekday: number } & Tally)[] = [];
  for (const [day, d] of days) {
    totals.watches += d.watches;
    totals.minutes += d.minutes;
    totals.movieWatches += d.movies;
    totals.episodeWatches += d.episodes;
    totals.ratings += d.ratings;
    if (d.watches === 0) continue;
    totals.activeDays++;
    const month = months.get(day.slice(0, 7)) ?? { month: day.slice(0, 7), watches: 0, minutes: 0 };
    month.watches += d.watches;
    month.minutes += d.minutes;
    months.set(month.month, month);
    const weekday = weekdays[isoWeekday(day) - 1]!;
    weekday.watches += d.watches;
    weekday.minutes += d.minutes;
    dated.push({ date: day, weekday: weekday.weekday, watches: d.watches, minutes: d.minutes });
  }

  const todayActive = (days.get(today)?.watches ?? 0) > 0;
  const span = { from: start, before: end, now };
  const [firstId, lastId] = [await edgeEntryId(em, userId, span, 'asc'), await edgeEntryId(em, userId, span, 'desc')];
  const edges = await historyItemsByIds(em, userId, [...new Set([firstId, lastId].filter((id) => id !== undefined))]);
  const byId = new Map(edges.map((e) => [String(e.id), e]));

  return {
    year,
    ...totals,
    topGenres: await genresOfYear(em, userId, year, later),
    busiestMonth: busiest(months.values()),
    busiestDay: busiest(dated),
    busiestWeekday: busiest(weekdays),
    longestStreak: await longestRunWithin(em, userId, first, todayActive ? today : dayOf(dayMs(today) - DAY_MS), last),
    topTitles: await topTitlesOfYear(em, userId, year, later, imageBaseUrl),
    firstWatch: (firstId && byId.get(firstId)) || null,
    lastWatch: (lastId && byId.get(lastId)) || null,
  };
}

/** The year's genre counts less the entries after now, most watched first, then by name. */
async function genresOfYear(em: EntityManager, userId: string, year: number, later: { genres: string[] }[]): Promise<YearInReview['topGenres']> {
  const counts = new Map((await genreCountsFrom(em, userId, `${year}-01-01`, `${year}-12-01`)).map((g) => [g.genre, g.watches]));
  for (const e of later) for (const g of e.genres) counts.set(g, (counts.get(g) ?? 0) - 1);
  return [...counts]
    .filter(([, n]) => n > 0)
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
    .slice(0, TOP_GENRES)
    .map(([name, count]) => ({ name, count }));
}

/**
 * The longest run of days with an entry within [first, min(last, lastActive)], each run clipped to it
 * (`lastActive`: today when today has an entry by now, else yesterday); the earlier of equal runs.
 */
async function longestRunWithin(em: EntityManager, userId: string, first: string, lastActive: string, last: string): Promise<YearInReview['longestStreak']> {
  const to = lastActive < last ? lastActive : last;
  if (to < first) return null;
  let best: NonNullable<YearInReview['longestStreak']> | null = null;
  const runs = (await runsAround(em, userId, first, to)).sort((a, b) => (a.first_day < b.first_day ? -1 : 1));
  for (const r of runs) {
    const firstDay = r.first_day < first ? first : r.first_day;
    const lastDay = r.last_day > to ? to : r.last_day;
    const days = (dayMs(lastDay) - dayMs(firstDay)) / DAY_MS + 1;
    if (days >= 1 && (!best || days > best.days)) best = { days, firstDay, lastDay };
  }
  return best;
}

/**
 * The year's top titles less the entries after now. Taking those away can only lower a title, so the
 * kept top TOP_TITLES plus one per later entry hold the top TOP_TITLES as of now.
 */
async function topTitlesOfYear(
  em: EntityManager,
  userId: string,
  year: number,
  later: { title_id: string; minutes: number }[],
  imageBaseUrl: string,
): Promise<YearInReview['topTitles']> {
  const rows = await topYearTitles(em, userId, year, TOP_TITLES + later.length);
  const byTitle = new Map(rows.map((r) => [String(r.title_id), { ...r }]));
  for (const e of later) {
    const r = byTitle.get(String(e.title_id));
    if (!r) continue;
    r.watches--;
    r.minutes = Math.max(0, r.minutes - e.minutes);
  }
  return [...byTitle.values()]
    .filter((r) => r.watches > 0)
    .sort((a, b) => b.watches - a.watches || b.minutes - a.minutes || Number(a.title_id) - Number(b.title_id))
    .slice(0, TOP_TITLES)
    .map((r) => ({ title: toCatalogItem(r, imageBaseUrl), watches: r.watches, minutes: r.minutes }));
}
