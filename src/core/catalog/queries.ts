// SQL of the public catalog reads, built from validated inputs with bound parameters. Kept apart from
// the service so the benchmark runs exactly the same statements through a bare `pg` client.
import { sqlParams, type Sql } from '../db/sql.ts';
import { ITEM_COLUMNS } from './present.ts';
import type { DiscoverInput, SearchInput, TrendingInput } from './schemas.ts';

type Filters = { type?: string | undefined; category?: string | undefined; genre?: string | undefined };

function titleCase(s: string) {
  return s.toLowerCase().replace(/(^|[\s-])(\p{L})/gu, (_m, sep: string, c: string) => sep + c.toUpperCase());
}

function filterClauses(f: Filters, p: (value: unknown) => string): string[] {
  const where: string[] = [];
  if (f.type) where.push(`t.type = ${p(f.type)}`);
  if (f.category) where.push(`t.category = ${p(f.category)}`);
  // Genres are stored as the source spells them ("Science Fiction"); "science fiction" finds them too.
  if (f.genre) where.push(`t.genres && ${p([f.genre, titleCase(f.genre)])}::text[]`);
  return where;
}

const whereClause = (where: string[]) => (where.length ? `where ${where.join(' and ')}` : '');

/**
 * Relevance search. Candidates: the query is word-similar to a part of the name (trigrams, threshold 0.6:
 * typo and partial-name tolerance, e.g. "spirted away", "harry poter"), or its words match the name or
 * original name (full text). Whole-string similarity (`%`) is left out of the filter: common trigrams
 * ("the") make it match a third of the catalog, ten times the cost for no better first results.
 * Score: the best of trigram similarity, word similarity and text rank, an exact-name bonus, a prefix
 * bonus and a small popularity tie-breaker.
 */
export function searchSql(input: SearchInput): Sql {
  const { params, p } = sqlParams();
  const q = p(input.q.toLowerCase());
  const tsq = `websearch_to_tsquery('simple', ${p(input.q)})`;
  const prefix = p(`${input.q.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`);
  const where = [`(${q} <% t.search_name or t.search_vector @@ ${tsq})`, ...filterClauses(input, p)];
  if (input.anime !== undefined) where.push(`t.is_anime = ${p(input.anime)}`);
  if (input.year !== undefined) where.push(`t.year = ${p(input.year)}`);
  const text = `select ${ITEM_COLUMNS},
      greatest(similarity(t.search_name, ${q}), word_similarity(${q}, t.search_name), ts_rank(t.search_vector, ${tsq}))
      + case when t.search_name = ${q} then 1 else 0 end
      + case when t.search_name like ${prefix} then 0.2 else 0 end
      + 0.02 * ln(1 + greatest(t.popularity, 0)) as score
    from title t
    ${whereClause(where)}
    order by score desc, t.popularity desc, t.id
    limit ${p(input.limit)}`;
  return { text, params };
}

const DISCOVER_ORDER = {
  popularity: 't.popularity desc, t.id',
  rating: 't.community_rating desc, t.vote_count desc, t.id',
  release_date: 't.release_date desc nulls last, t.id',
  name: 't.search_name, t.id',
} as const;

export function discoverSql(input: DiscoverInput): Sql {
  const { params, p } = sqlParams();
  const where = filterClauses(input, p);
  if (input.yearFrom !== undefined) where.push(`t.year >= ${p(input.yearFrom)}`);
  if (input.yearTo !== undefined) where.push(`t.year <= ${p(input.yearTo)}`);
  if (input.language) where.push(`t.original_language = ${p(input.language)}`);
  if (input.minRating !== undefined) where.push(`t.community_rating >= ${p(input.minRating)}`);
  const text = `select ${ITEM_COLUMNS} from title t ${whereClause(where)}
    order by ${DISCOVER_ORDER[input.sort]} limit ${p(input.limit)}`;
  return { text, params };
}

/**
 * Trending: the titles the community watched most in the last 7 days (the roll-up in title_trending,
 * refreshed by the `trending` job: distinct watchers, then watches), then, to fill the page, the rest
 * by catalog popularity. Two small ordered branches: the roll-up is small, and the fill-up walks the
 * popularity order as before.
 */
export function trendingSql(input: TrendingInput): Sql {
  const { params, p } = sqlParams();
  const limit = p(input.limit);
  const watched = filterClauses(input, p);
  const rest = [...filterClauses(input, p), 'not exists (select 1 from title_trending x where x.title_id = t.id)'];
  const text = `select * from (
      (select ${ITEM_COLUMNS}, t.id as rank_id, 0 as rank_group, tt.watchers as rank_watchers, tt.watches as rank_watches
        from title_trending tt join title t on t.id = tt.title_id ${whereClause(watched)}
        order by tt.watchers desc, tt.watches desc, t.popularity desc, t.id limit ${limit})
      union all
      (select ${ITEM_COLUMNS}, t.id, 1, 0, 0 from title t ${whereClause(rest)}
        order by t.popularity desc, t.id limit ${limit})
    ) r order by rank_group, rank_watchers desc, rank_watches desc, popularity desc, rank_id limit ${limit}`;
  return { text, params };
}
