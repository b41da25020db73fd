// The user's trophy metrics (catalog.ts METRIC_RULES), each from a few aggregate queries over the user's
// rows only (every one starts from an index on user_id / owner_id). Only the groups of metrics asked for
// run: the job asks for those a change can have moved and that still have a trophy to earn.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { ChangeResource } from '../changes/resources.ts';
import { TROPHY_METRICS, type TrophyMetric } from './catalog.ts';
import { listTotals, longestStreak, ratingsHeld, showsCompleted, watchTotals } from './repository.ts';

export type Metrics = Record<TrophyMetric, number>;

type Group = { metrics: readonly TrophyMetric[]; read(em: EntityManager, userId: string): Promise<Partial<Metrics>> };

const GROUPS: readonly Group[] = [
  {
    metrics: ['watches', 'movies', 'episodes', 'anime_titles', 'hours'],
    async read(em, userId) {
      const r = await watchTotals(em, userId);
      return { watches: r.watches, movies: r.movies, episodes: r.episodes, anime_titles: r.anime_titles, hours: Math.floor(Number(r.minutes) / 60) };
    },
  },
  { metrics: ['shows_completed'], read: async (em, userId) => ({ shows_completed: await showsCompleted(em, userId) }) },
  { metrics: ['longest_streak'], read: async (em, userId) => ({ longest_streak: await longestStreak(em, userId) }) },
  { metrics: ['ratings'], read: async (em, userId) => ({ ratings: await ratingsHeld(em, userId) }) },
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
