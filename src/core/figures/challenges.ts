// The weekly challenges (community statistics) and the XP formula. A week is an ISO week in UTC (Monday
// 00:00 to the next Monday). Every week of a user's history is judged by the same rules; the totals over
// every week are kept on write (days.ts).

/** What the user did in one ISO week. */
export type WeekActivity = { movies: number; episodes: number; ratings: number; activeDays: number };

type Challenge = { id: string; title: string; description: string; target: number; xpReward: number; measure: keyof WeekActivity };

const WEEKLY_CHALLENGES: readonly Challenge[] = [
  { id: 'weekly-episodes', title: 'Episode marathon', description: 'Watch 5 episodes this week', target: 5, xpReward: 50, measure: 'episodes' },
  { id: 'weekly-movies', title: 'Movie nights', description: 'Watch 2 movies this week', target: 2, xpReward: 40, measure: 'movies' },
  { id: 'weekly-ratings', title: 'Critic', description: 'Rate 3 titles, seasons or episodes this week', target: 3, xpReward: 30, measure: 'ratings' },
  { id: 'weekly-days', title: 'Regular', description: 'Watch something on 4 different days this week', target: 4, xpReward: 60, measure: 'activeDays' },
];

/** XP per watch and per rating, besides challenge rewards. */
const XP = { movie: 10, episode: 3, rating: 5 } as const;

/** A challenge as judged for one week (the shape of community statistics' weeklyChallenges). */
type JudgedChallenge = Omit<Challenge, 'measure'> & { progress: number; completed: boolean };

export function judgeWeek(week: WeekActivity): JudgedChallenge[] {
  return WEEKLY_CHALLENGES.map(({ measure, ...c }) => ({ ...c, progress: Math.min(week[measure], c.target), completed: week[measure] >= c.target }));
}

/** Totals over every week: completed challenges and the XP score. */
export function totals(weeks: WeekActivity[]): { challengesCompleted: number; xpScore: number } {
  let challengesCompleted = 0;
  let xpScore = 0;
  for (const week of weeks) {
    xpScore += XP.movie * week.movies + XP.episode * week.episodes + XP.rating * week.ratings;
    for (const c of judgeWeek(week)) {
      if (!c.completed) continue;
      challengesCompleted++;
      xpScore += c.xpReward;
    }
  }
  return { challengesCompleted, xpScore };
}
