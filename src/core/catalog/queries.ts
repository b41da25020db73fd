// SQL of the public catalog reads, built from validated inputs. Kept apart from the service so the
// benchmark runs exactly the same statements through a bare `pg` client. Placeholders are `?`
// (MikroORM's); the benchmark renumbers them for `pg`.
import { ITEM_COLUMNS } from './present.ts';
import type { DiscoverInput, SearchInput, TrendingInput } from './schemas.ts';

export type Sql = { text: string; params: unknown[] };

function filters(where: string[], params: unknown[], f: { type?: string; category?: string; genre?: string }) {
  if (f.type) {
    where.push('t.type = ?');
    params.push(f.type);
  }
  if (f.category) {
    where.push('t.category = ?');
    params.push(f.category);
  }
  if (f.genre) {
    // Genres are stored as given by the source ("Science Fiction"); match them without regard to case.
    // (Arrays are not bound as one parameter: MikroORM expands them into lists.)
    where.push('t.genres && array[?, ?]::text[]');
    params.push(f.genre, titleCase(f.genre));
  }
}

function titleCase(s: string) {
  return s.toLowerCase().replace(/(^|[\s-])(\p{L})/gu, (_m, sep: string, c: string) => sep + c.toUpperCase());
}

/**
 * Relevance search. Candidates: the query is word-similar to a part of the name (trigrams, threshold 0.6:
 * typo and partial-name tolerance, e.g. "spirted away", "harry poter"), or its words match the name or
 * original name (full text). Whole-string similarity (`%`) is left out of the filter: common trigrams
 * ("the") make it match a third of the catalog, ten times the cost for no better first results.
 * Score: the best of trigram similarity, word similarity and text rank, an exact-name bonus, a prefix
 * bonus and a small popularity tie-breaker.
 */
export function searchSql(input: SearchInput): Sql {
  const q = input.q.toLowerCase();
  const likePrefix = `${q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  // Score first (its placeholders come first in the statement), then the filters, then the limit.
  const params: unknown[] = [q, q, input.q, q, likePrefix, q, input.q];
  const where: string[] = [`(? <% t.search_name or t.search_vector @@ websearch_to_tsquery('simple', ?))`];
  filters(where, params, input);
  if (input.anime !== undefined) {
    where.push('t.is_anime = ?');
    params.push(input.anime);
  }
  if (input.year !== undefined) {
    where.push('t.year = ?');
    params.push(input.year);
  }
  params.push(input.limit);
  const text = `select ${ITEM_COLUMNS},
      greatest(similarity(t.search_name, ?), word_similarity(?, t.search_name),
               ts_rank(t.search_vector, websearch_to_tsquery('simple', ?)))
      + case when t.search_name = ? then 1 else 0 end
      + case when t.search_name like ? then 0.2 else 0 end
      + 0.02 * ln(1 + greatest(t.popularity, 0)) as score
    from title t
    where ${where.join(' and ')}
    order by score desc, t.popularity desc, t.id
    limit ?`;
  return { text, params };
}

export function discoverSql(input: DiscoverInput): Sql {
  const where: string[] = [];
  const params: unknown[] = [];
  filters(where, params, input);
  if (input.yearFrom !== undefined) {
    where.push('t.year >= ?');
    params.push(input.yearFrom);
  }
  if (input.yearTo !== undefined) {
    where.push('t.year <= ?');
    params.push(input.yearTo);
  }
  if (input.language) {
    where.push('t.original_language = ?');
    params.push(input.language);
  }
  if (input.minRating !== undefined) {
    where.push('t.community_rating >= ?');
    params.push(input.minRating);
  }
  const order = {
    popularity: 't.popularity desc, t.id',
    // A rating from a handful of votes says little: rank rated titles by rating among those with votes.
    rating: 't.community_rating desc, t.vote_count desc, t.id',
    release_date: 't.release_date desc nulls last, t.id',
    name: 't.search_name, t.id',
  }[input.sort];
  params.push(input.limit);
  const text = `select ${ITEM_COLUMNS} from title t
    ${where.length ? `where ${where.join(' and ')}` : ''}
    order by ${order}
    limit ?`;
  return { text, params };
}

/** Trending: by catalog popularity until watch activity roll-ups exist (see docs/decisions.md). */
export function trendingSql(input: TrendingInput): Sql {
  const where: string[] = [];
  const params: unknown[] = [];
  filters(where, params, input);
  params.push(input.limit);
  const text = `select ${ITEM_COLUMNS} from title t
    ${where.length ? `where ${where.join(' and ')}` : ''}
    order by t.popularity desc, t.id
    limit ?`;
  return { text, params };
}
