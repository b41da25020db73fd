// GET /me/community-stats, computed from the user's watch history and ratings as of `now` (a parameter,
// so tests can pin the date). Days, weeks (ISO, from Monday) and months are UTC; nothing after `now`
// counts.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { ProfilePart } from '../actor-visibility.ts';
import { judgeWeek, totals, type WeekActivity } from './challenges.ts';
import type { CommunityStats } from './schemas.ts';
import { latestRun, monthGenres, monthReviews, monthWatches, weekActivity } from './stats-repository.ts';

const DAY_MS = 86_400_000;

const isoDate = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/**
 * `see`: the parts the token may read (actor-visibility.ts). Figures computed from watches need
 * `history`, from ratings `ratings`; what the token may not read counts as nothing, challenges and XP
 * included, so no figure reveals activity the token cannot read.
 */
export async function communityStats(em: EntityManager, userId: string, now: Date, see: Pick<Record<ProfilePart, boolean>, 'history' | 'ratings'>): Promise<CommunityStats> {
  if (!see.history && !see.ratings) return statsOf({ genres: [], weekRows: [] }, now);
  const monthStart = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));

  const watches = see.history ? await monthWatches(em, userId, monthStart, now) : undefined;
  const genres = see.history ? await monthGenres(em, userId, monthStart, now) : [];
  const reviews = see.ratings ? await monthReviews(em, userId, monthStart, now) : undefined;
  const run = see.history ? await latestRun(em, userId, now) : undefined;
  const weekRows = (await weekActivity(em, userId, now)).map((w) => ({
    ...w,
    ...(see.history ? {} : { movies: 0, episodes: 0, active_days: 0 }),
    ...(see.ratings ? {} : { ratings: 0 }),
  }));
  return statsOf({ genres, weekRows, watches, reviews, run }, now);
}

type StatsInput = {
  genres: Awaited<ReturnType<typeof monthGenres>>;
  weekRows: Awaited<ReturnType<typeof weekActivity>>;
  watches?: Awaited<ReturnType<typeof monthWatches>> | undefined;
  reviews?: Awaited<ReturnType<typeof monthReviews>> | undefined;
  run?: Awaited<ReturnType<typeof latestRun>> | undefined;
};

function statsOf({ genres, weekRows, watches, reviews, run }: StatsInput, now: Date): CommunityStats {
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  const weekStart = isoDate(today - ((now.getUTCDay() + 6) % 7) * DAY_MS);

  const weeks = new Map<string, WeekActivity>(
    weekRows.map((w) => [w.week, { movies: w.movies, episodes: w.episodes, ratings: w.ratings, activeDays: w.active_days }]),
  );
  const thisWeek = judgeWeek(weeks.get(weekStart) ?? { movies: 0, episodes: 0, ratings: 0, activeDays: 0 });
  const all = totals([...weeks.values()]);
  const genreTotal = genres.reduce((sum, g) => sum + g.count, 0);
  const current = run?.last != null && run.last >= isoDate(today - DAY_MS);

  return {
    streak: current ? run.days : 0,
    monthMovies: watches?.movies ?? 0,
    monthEpisodes: watches?.episodes ?? 0,
    monthHours: Math.floor(Number(watches?.minutes ?? 0) / 60),
    monthReviews: reviews?.n ?? 0,
    monthGenres: genres.map((g) => ({ name: g.name, count: g.count, share: g.count / genreTotal })),
    weeklyChallenges: thisWeek,
    weeklyCompletedChallenges: thisWeek.filter((c) => c.completed).length,
    totalChallengesCompleted: all.challengesCompleted,
    xpScore: all.xpScore,
  };
}
