// Trakt's user statistics from the figures the service keeps on every write (core/figures): the totals
// (user_figures, which keep plays and minutes of movies apart from those of episodes) and the ratings
// held by scope (breakdowns-repository.ts: a grouped read of kept counts, never the history itself).
// What the service does not keep is 0: collected (no kept count of the collection), comments and the
// network (the service has neither), and the ratings' distribution by value.
import type { EntityManager } from '@mikro-orm/postgresql';
import { ratingCountsByScope } from '../core/figures/breakdowns-repository.ts';
import { userFigures } from '../core/figures/totals.ts';

export type StatsParts = { history: boolean; ratings: boolean };

/** `see`: what the reader may read of the user (history and ratings count as 0 otherwise). */
export async function traktUserStats(em: EntityManager, userId: string, see: StatsParts) {
  const totals = await userFigures(em, userId);
  const ratings = see.ratings ? await ratingCountsByScope(em, userId) : { title: 0, series: 0, season: 0, episode: 0 };
  const h = see.history;
  return {
    movies: { plays: h ? totals.movie_watches : 0, watched: h ? totals.movies : 0, minutes: h ? totals.movie_minutes : 0, collected: 0, ratings: ratings.title, comments: 0 },
    shows: { watched: h ? totals.shows : 0, collected: 0, ratings: ratings.series, comments: 0 },
    seasons: { ratings: ratings.season, comments: 0 },
    episodes: { plays: h ? totals.episode_watches : 0, watched: h ? totals.episodes : 0, minutes: h ? totals.episode_minutes : 0, collected: 0, ratings: ratings.episode, comments: 0 },
    network: { friends: 0, followers: 0, following: 0 },
    ratings: {
      total: see.ratings ? totals.ratings : 0,
      distribution: { 1: 0, 2: 0, 3: 0, 4: 0, 5: 0, 6: 0, 7: 0, 8: 0, 9: 0, 10: 0 },
    },
  };
}
