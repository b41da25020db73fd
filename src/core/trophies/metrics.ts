// The user's trophy metrics (catalog.ts METRIC_RULES), read from the figures kept on write (one row of
// totals, the completed shows, the longest run) and the user's own lists: never from the history. Only the groups of
// metrics asked for run: the job asks for those a change can have moved and that still have a trophy to earn.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { ChangeResource } from '../changes/resources.ts';
import { TROPHY_METRICS, type TrophyMetric } from './catalog.ts';
import { longestStreak, showsCompleted } from '../figures/read.ts';
import { userFigures } from '../figures/totals.ts';
import { listTotals } from './repository.ts';

export type Metrics = Record<TrophyMetric, number>;

type Group = { metrics: readonly TrophyMetric[]; read(em: EntityManager, userId: string): Promise<Partial<Metrics>> };

const GROUPS: readonly Group[] = [
  {
    metrics: ['watches', 'movies', 'episodes', 'anime_titles', 'hours', 'ratings'],
    async read(em, userId) {
      const f = await userFigures(em, userId);
      return { watches: f.watches, movies: f.movies, episodes: f.episodes, anime_titles: f.anime_titles, hours: Math.floor(f.minutes / 60), ratings: f.ratings };
    },
  },
  { metrics: ['shows_completed'], read: async (em, userId) => ({ shows_completed: await showsCompleted(em, userId) }) },
  { metrics: ['longest_streak'], read: async (em, userId) => ({ longest_streak: await longestStreak(em, userId) }) },
  { metrics: ['lists', 'list_items_max'], read: (em, userId) => listTotals(em, userId) },
];

/** The metrics a change of each followed resource can move. */
export const METRICS_OF_RESOURCE: Readonly<Partial<Record<ChangeResource, readonly TrophyMetric[]>>> = {
  history: ['watches', 'movies', 'episodes', 'anime_titles', 'hours', 'shows_completed', 'longest_streak'],
  ratings: ['ratings'],
  lists: ['lists', 'list_items_max'],
  list_items: ['list_items_max'],
};

/** The resources whose changes can earn a trophy (the trophy job follows these in change_log). */
export const TROPHY_RESOURCES = Object.keys(METRICS_OF_RESOURCE) as ChangeResource[];

/** The metrics asked for (default all); the others are absent. */
export async function readMetrics(em: EntityManager, userId: string, wanted: ReadonlySet<TrophyMetric> = new Set(TROPHY_METRICS)): Promise<Partial<Metrics>> {
  const out: Partial<Metrics> = {};
  for (const group of GROUPS) {
    if (group.metrics.some((m) => wanted.has(m))) Object.assign(out, await group.read(em, userId));
  }
  return out;
}
