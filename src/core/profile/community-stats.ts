// GET /me/community-stats as of `now` (a parameter, so tests can pin the date). Days, weeks (ISO, from
// Monday) and months are UTC; nothing after `now` counts. Read from the figures kept on write: the days of
// this month and week, this month's genres, the streak run and the totals over every week, less the few
// rows after `now` (logged ahead of the clock); never from the whole history.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { ProfilePart } from '../actor-visibility.ts';
import { addScores, dayMs, dayOf, utcDayOf, weekActivity, weekOf, weekScore, type DayFigures, type WeekScore } from '../figures/days.ts';
import { runAtOrBefore } from '../figures/read.ts';
import { userFigures } from '../figures/totals.ts';
import { judgeWeek } from '../figures/challenges.ts';
import type { CommunityStats } from './schemas.ts';
import { daysFrom, entriesBetween, monthGenreCounts, ratingsBetween } from './stats-repository.ts';

const DAY_MS = 86_400_000;
const ZERO: DayFigures = { watches: 0, movies: 0, episodes: 0, minutes: 0, ratings: 0 };

/**
 * `see`: the parts the token may read (actor-visibility.ts). Figures computed from watches need
 * `history`, from ratings `ratings`; what the token may not read counts as nothing, challenges and XP
 * included, so no figure reveals activity the token cannot read.
 */
export async function communityStats(em: EntityManager, userId: string, now: Date, see: Pick<Record<ProfilePart, boolean>, 'history' | 'ratings'>): Promise<CommunityStats> {
  const today = utcDayOf(now);
  const monthStart = `${today.slice(0, 7)}-01`;
  const nextMonth = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1));
  const weekStart = weekOf(today);
  if (!see.history && !see.ratings) return statsOf(emptyWeek(), { streak: 0, month: ZERO, genres: [], challenges: 0, xp: 0 });

  // The kept days from the earlier of this month's and this week's first day on; then today less what lies after now.
  const kept = new Map((await daysFrom(em, userId, monthStart < weekStart ? monthStart : weekStart)).map((d) => [d.day, d as DayFigures]));
  const later = await entriesBetween(em, userId, now, nextMonth);
  const laterRatings = await ratingsBetween(em, userId, now, new Date(dayMs(today) + DAY_MS));
  const asOfNow = new Map<string, DayFigures>();
  for (const [day, d] of kept) if (day <= today) asOfNow.set(day, { ...d });
  const todays = asOfNow.get(today);
  if (todays) {
    for (const e of later.filter((e) => utcDayOf(e.watched_at) === today)) {
      todays.watches--;
      todays.movies -= Number(e.type === 'movie');
      todays.episodes -= Number(e.type === 'show');
      todays.minutes -= e.minutes;
    }
    todays.ratings -= laterRatings.length;
  }
  const visible = (d: DayFigures): DayFigures => ({
    ...(see.history ? d : { ...ZERO }),
    ratings: see.ratings ? d.ratings : 0,
  });
  const day = (d: string) => visible(asOfNow.get(d) ?? ZERO);

  // This week as of now replaces what the kept totals hold for it and every later week.
  const thisWeek = Array.from({ length: 7 }, (_, i) => day(dayOf(dayMs(weekStart) + i * DAY_MS)));
  const laterWeeks = new Map<string, DayFigures[]>();
  for (const [d, figures] of kept) if (d >= weekStart) laterWeeks.set(weekOf(d), [...(laterWeeks.get(weekOf(d)) ?? []), figures]);
  const score = addScores({ ...(await userFigures(em, userId)) } as WeekScore & Record<string, number>, weekScore(thisWeek));
  for (const days of laterWeeks.values()) addScores(score, weekScore(days), -1);
  const view = see.history && see.ratings ? '' : see.history ? 'watch_' : 'rating_';

  const month = { ...ZERO };
  for (const [d] of asOfNow) {
    if (d < monthStart) continue;
    const f = day(d);
    month.movies += f.movies;
    month.episodes += f.episodes;
    month.minutes += f.minutes;
    month.ratings += f.ratings;
  }

  return statsOf(thisWeek, {
    streak: see.history ? await streak(em, userId, today, (asOfNow.get(today)?.watches ?? 0) > 0) : 0,
    month,
    genres: see.history ? await genresAsOfNow(em, userId, monthStart, later) : [],
    challenges: score[`${view}challenges`],
    xp: score[`${view}xp`],
  });
}

const emptyWeek = () => Array.from({ length: 7 }, () => ZERO);

/** Consecutive days with an entry ending today (when today has one by now) or yesterday; 0 otherwise. */
async function streak(em: EntityManager, userId: string, today: string, todayActive: boolean): Promise<number> {
  const end = todayActive ? today : dayOf(dayMs(today) - DAY_MS);
  const run = await runAtOrBefore(em, userId, end);
  if (!run || run.last_day < end) return 0;
  return (dayMs(end) - dayMs(run.first_day)) / DAY_MS + 1;
}

/** This month's kept genre counts less the entries after now, most watched first. */
async function genresAsOfNow(em: EntityManager, userId: string, month: string, later: { genres: string[] }[]) {
  const counts = new Map((await monthGenreCounts(em, userId, month)).map((g) => [g.genre, g.watches]));
  for (const e of later) for (const g of e.genres) counts.set(g, (counts.get(g) ?? 0) - 1);
  return [...counts].filter(([, n]) => n > 0).sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
}

type Parts = { streak: number; month: DayFigures; genres: [string, number][]; challenges: number; xp: number };

function statsOf(week: DayFigures[], p: Parts): CommunityStats {
  const challenges = judgeWeek(weekActivity(week));
  const genreTotal = p.genres.reduce((sum, [, n]) => sum + n, 0);
  return {
    streak: p.streak,
    monthMovies: p.month.movies,
    monthEpisodes: p.month.episodes,
    monthHours: Math.floor(p.month.minutes / 60),
    monthReviews: p.month.ratings,
    monthGenres: p.genres.map(([name, count]) => ({ name, count, share: count / genreTotal })),
    weeklyChallenges: challenges,
    weeklyCompletedChallenges: challenges.filter((c) => c.completed).length,
    totalChallengesCompleted: p.challenges,
    xpScore: p.xp,
  };
}
