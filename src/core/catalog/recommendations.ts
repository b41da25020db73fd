// Recommendations, precomputed for the whole catalog: the title detail reads a title's list by its key
// (title_recommendation) instead of ranking tens of thousands of titles on a request.
//
// The rule, for a title T:
// 1. candidates: the titles of T's type and anime-ness (not T) sharing at least one genre with T, the
//    RECOMMENDATION_CANDIDATES most popular of them (popularity descending, then id ascending);
// 2. of those, the RECOMMENDATIONS_LIMIT sharing the most genres with T (each genre of the candidate
//    found among T's genres counts), then the most popular, then the lowest id.
// A title with no genre has none.
//
// Computed in one pass, in memory: for each (type, anime-ness, genre), the CANDIDATES + 1 most popular
// titles; a title's candidates are then among the union of its genres' lists (a title within T's top
// CANDIDATES shares some genre g with T, and every title with g but T is a candidate, so it ranks within
// the top CANDIDATES + 1 of g). Titles with the same type, anime-ness and genre set share the work.
import type { EntityManager } from '@mikro-orm/postgresql';
import { transaction } from '../db/transaction.ts';
import { catalogForRecommendations, recommendationsStale, writeRecommendations, type RecommendationInput } from './recommendations-repository.ts';

export const RECOMMENDATIONS_LIMIT = 10;
export const RECOMMENDATION_CANDIDATES = 100;

type Scored = RecommendationInput & { order: number };

/** Popularity descending, then id ascending: the candidates' order. */
const byPopularity = (a: Scored, b: Scored) => b.popularity - a.popularity || a.order - b.order;

/** Each title's recommended ids, best first, by the rule above. */
export function recommend(titles: readonly RecommendationInput[]): Map<string, string[]> {
  const scored: Scored[] = titles.map((t) => ({ ...t, order: Number(t.id) }));
  // The CANDIDATES + 1 most popular titles of each (type, anime-ness, genre).
  const byGenre = new Map<string, Scored[]>();
  for (const t of scored) {
    for (const g of new Set(t.genres)) {
      const key = `${t.type}|${t.isAnime}|${g}`;
      const list = byGenre.get(key);
      if (list) list.push(t);
      else byGenre.set(key, [t]);
    }
  }
  for (const list of byGenre.values()) {
    list.sort(byPopularity);
    list.length = Math.min(list.length, RECOMMENDATION_CANDIDATES + 1);
  }

  const result = new Map<string, string[]>();
  // Per genre set: the merged candidate pool, and the answer for titles that are not in it.
  const pools = new Map<string, { pool: Scored[]; genres: Set<string>; outsider?: string[] }>();
  for (const t of scored) {
    const genres = [...new Set(t.genres)].sort();
    if (genres.length === 0) {
      result.set(t.id, []);
      continue;
    }
    const key = `${t.type}|${t.isAnime}|${genres.join('|')}`;
    let entry = pools.get(key);
    if (!entry) {
      const merged = new Set<Scored>();
      for (const g of genres) for (const x of byGenre.get(`${t.type}|${t.isAnime}|${g}`) ?? []) merged.add(x);
      entry = { pool: [...merged].sort(byPopularity), genres: new Set(genres) };
      pools.set(key, entry);
    }
    const inPool = entry.pool.slice(0, RECOMMENDATION_CANDIDATES + 1).includes(t);
    if (inPool) result.set(t.id, rank(entry.pool, entry.genres, t));
    else result.set(t.id, (entry.outsider ??= rank(entry.pool, entry.genres, undefined)));
  }
  return result;
}

/** Step 2 of the rule over the pool's first CANDIDATES titles other than `self`. */
function rank(pool: Scored[], genres: Set<string>, self: Scored | undefined): string[] {
  const candidates = pool.filter((x) => x !== self).slice(0, RECOMMENDATION_CANDIDATES);
  const shared = new Map(candidates.map((x) => [x, x.genres.filter((g) => genres.has(g)).length]));
  return candidates
    .sort((a, b) => shared.get(b)! - shared.get(a)! || byPopularity(a, b))
    .slice(0, RECOMMENDATIONS_LIMIT)
    .map((x) => x.id);
}

/** Recomputes every title's recommendations; the number of titles written. */
export async function refreshRecommendations(em: EntityManager): Promise<number> {
  return transaction(em, async (tx) => {
    const lists = recommend(await catalogForRecommendations(tx));
    await writeRecommendations(tx, lists);
    return lists.size;
  });
}

/**
 * The `recommendations` job's run: recomputes them when a title changed since they were computed, or a
 * title has none yet (a catalog imported before they existed, or one the import could not finish).
 */
export async function refreshStaleRecommendations(em: EntityManager): Promise<{ titles: number }> {
  if (!(await recommendationsStale(em))) return { titles: 0 };
  return { titles: await refreshRecommendations(em) };
}
