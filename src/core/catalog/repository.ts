// The catalog module's statements: the public catalog reads (search, discover, trending, size) and the
// trending roll-up. The reads are built on a given query builder (`db(em)` when they run).
import type { EntityManager } from '@mikro-orm/postgresql';
import { sql, type ExpressionBuilder, type Kysely } from 'kysely';
import { db } from '../db/query-builder.ts';
import type { Tables } from '../schema/index.ts';
import { transaction } from '../db/transaction.ts';
import type { DiscoverInput, SearchInput, TrendingInput } from './schemas.ts';

type WithTitle = Tables & { t: Tables['title'] };
/** A query's expression builder seen through its `title as t` (helpers below serve several queries). */
const titleEb = <DB extends { t: Tables['title'] }, TB extends keyof DB>(eb: ExpressionBuilder<DB, TB>) => eb as unknown as ExpressionBuilder<WithTitle, 't'>;

/** The columns every catalog read selects for an item, `title as t` (present.ts makes the wire item of them). */
export const itemColumns = <DB extends { t: Tables['title'] }, TB extends keyof DB>(eb: ExpressionBuilder<DB, TB>) =>
  [
    't.type',
    't.movie_db_id',
    't.category',
    't.is_anime',
    't.name',
    't.year',
    't.overview',
    't.poster_path',
    't.backdrop_path',
    't.community_rating',
    't.release_date',
    't.popularity',
    titleEb(eb).fn.coalesce('t.runtime_minutes', 't.episode_run_time_minutes', eb.lit(0)).as('runtime_minutes'),
    't.genres',
    't.age_rating',
    't.original_language',
    't.poster_color',
    't.poster_color_is_dark',
  ] as const;

type Filters = { type?: 'movie' | 'show' | undefined; category?: 'movie' | 'show' | 'anime' | undefined; genre?: string | undefined };

function titleCase(s: string) {
  return s.toLowerCase().replace(/(^|[\s-])(\p{L})/gu, (_m, sep: string, c: string) => sep + c.toUpperCase());
}

/** The search's words as a full-text query (the simple configuration: no stemming, no stop words). */
const tsQuery = <DB, TB extends keyof DB>(eb: ExpressionBuilder<DB, TB>, q: string) => eb.fn<string>('websearch_to_tsquery', [eb.val('simple'), eb.val(q)]);

function filters<DB extends { t: Tables['title'] }, TB extends keyof DB>(outer: ExpressionBuilder<DB, TB>, f: Filters) {
  const eb = titleEb(outer);
  const where = [];
  if (f.type) where.push(eb('t.type', '=', f.type));
  if (f.category) where.push(eb('t.category', '=', f.category));
  // Genres are stored as the source spells them ("Science Fiction"); "science fiction" finds them too.
  if (f.genre) where.push(eb('t.genres', '&&', eb.val([f.genre, titleCase(f.genre)])));
  return where;
}

/**
 * Relevance search. Candidates: the query is word-similar to a part of the name (trigrams, threshold 0.6,
 * 0.5 on searchItems' retry: typo and partial-name tolerance, e.g. "spirted away", "harry poter"), or
 * its words match the name or original name (full text). Whole-string similarity (`%`) is left out of
 * the filter: common trigrams ("the") make it match a third of the catalog, ten times the cost for no
 * better first results.
 * Score: the best of trigram similarity, word similarity and text rank, an exact-name bonus, a prefix
 * bonus and a small popularity tie-breaker.
 */
export function searchQuery(k: Kysely<Tables>, input: SearchInput) {
  const q = input.q.toLowerCase();
  const prefix = `${q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  return k
    .selectFrom('title as t')
    .select((eb) => {
      const relevance = eb.fn<number>('greatest', [
        eb.fn('similarity', ['t.search_name', eb.val(q)]),
        eb.fn('word_similarity', [eb.val(q), 't.search_name']),
        eb.fn('ts_rank', ['t.search_vector', tsQuery(eb, input.q)]),
      ]);
      const exact = eb.case().when('t.search_name', '=', q).then(eb.lit(1)).else(eb.lit(0)).end();
      const startsWith = eb.case().when('t.search_name', 'like', prefix).then(eb.lit(0.2)).else(eb.lit(0)).end();
      const popular = eb(eb.lit<number>(0.02), '*', eb.fn<number>('ln', [eb(eb.lit<number>(1), '+', eb.fn<number>('greatest', ['t.popularity', eb.lit(0)]))]));
      return [...itemColumns(eb), eb(eb(eb(relevance, '+', exact), '+', startsWith), '+', popular).as('score')];
    })
    .where((eb) =>
      eb.and([
        eb.or([
          // raw: pg_trgm's word-similarity operator `<%` is not one the builder knows
          sql<boolean>`${q} <% ${eb.ref('t.search_name')}`,
          eb('t.search_vector', '@@', tsQuery(eb, input.q)),
        ]),
        ...filters(eb, input),
        ...(input.anime === undefined ? [] : [eb('t.is_anime', '=', input.anime)]),
        ...(input.year === undefined ? [] : [eb('t.year', '=', input.year)]),
      ]),
    )
    .orderBy('score', 'desc')
    .orderBy('t.popularity', 'desc')
    .orderBy('t.id')
    .limit(input.limit);
}

export function discoverQuery(k: Kysely<Tables>, input: DiscoverInput) {
  let q = k
    .selectFrom('title as t')
    .select(itemColumns)
    .where((eb) =>
      eb.and([
        ...filters(eb, input),
        ...(input.yearFrom === undefined ? [] : [eb('t.year', '>=', input.yearFrom)]),
        ...(input.yearTo === undefined ? [] : [eb('t.year', '<=', input.yearTo)]),
        ...(input.language ? [eb('t.original_language', '=', input.language)] : []),
        ...(input.minRating === undefined ? [] : [eb('t.community_rating', '>=', input.minRating)]),
      ]),
    );
  switch (input.sort) {
    case 'popularity':
      q = q.orderBy('t.popularity', 'desc');
      break;
    case 'rating':
      q = q.orderBy('t.community_rating', 'desc').orderBy('t.vote_count', 'desc');
      break;
    case 'release_date':
      q = q.orderBy('t.release_date', (ob) => ob.desc().nullsLast());
      break;
    case 'name':
      q = q.orderBy('t.search_name');
      break;
  }
  return q.orderBy('t.id').limit(input.limit);
}

/**
 * Trending: the titles the community watched most in the last 7 days (the roll-up in title_trending,
 * refreshed by the `trending` job: distinct watchers, then watches), then, to fill the page, the rest
 * by catalog popularity. Two small ordered branches: the roll-up is small, and the fill-up walks the
 * popularity order as before.
 */
function trendingQuery(k: Kysely<Tables>, input: TrendingInput) {
  const watched = k
    .selectFrom('title_trending as tt')
    .innerJoin('title as t', 't.id', 'tt.title_id')
    .select((eb) => [...itemColumns(eb), 't.id as rank_id', eb.lit<number>(0).as('rank_group'), 'tt.watchers as rank_watchers', 'tt.watches as rank_watches'])
    .where((eb) => eb.and(filters(eb, input)))
    .orderBy('tt.watchers', 'desc')
    .orderBy('tt.watches', 'desc')
    .orderBy('t.popularity', 'desc')
    .orderBy('t.id')
    .limit(input.limit);
  const rest = k
    .selectFrom('title as t')
    .select((eb) => [...itemColumns(eb), 't.id as rank_id', eb.lit<number>(1).as('rank_group'), eb.lit<number>(0).as('rank_watchers'), eb.lit<number>(0).as('rank_watches')])
    .where((eb) => eb.and([...filters(eb, input), eb.not(eb.exists(eb.selectFrom('title_trending as x').select(eb.lit(1).as('one')).whereRef('x.title_id', '=', 't.id')))]))
    .orderBy('t.popularity', 'desc')
    .orderBy('t.id')
    .limit(input.limit);
  // Each branch keeps its own order and limit inside a derived table.
  return k
    .selectFrom((eb) =>
      eb
        .selectFrom(watched.as('w'))
        .selectAll()
        .unionAll(eb.selectFrom(rest.as('f')).selectAll())
        .as('r'),
    )
    .selectAll()
    .orderBy('rank_group')
    .orderBy('rank_watchers', 'desc')
    .orderBy('rank_watches', 'desc')
    .orderBy('popularity', 'desc')
    .orderBy('rank_id')
    .limit(input.limit);
}

/** The word similarity a search retries with when it found nothing (pg_trgm's default, 0.6, first). */
const LOOSE_WORD_SIMILARITY = 0.5;

/** Sets pg_trgm's word-similarity threshold (`<%`) for the rest of the transaction. */
export const looseWordSimilarity = (k: Kysely<Tables>) =>
  k.selectNoFrom((eb) => eb.fn<string>('set_config', [eb.val('pg_trgm.word_similarity_threshold'), eb.val(String(LOOSE_WORD_SIMILARITY)), eb.val(true)]).as('threshold'));

/**
 * The search; when it finds nothing, once more with a looser word similarity, which tolerates a typo in
 * every word ("spirted awey" is 0.5 word-similar to "spirited away"). Only a search that found nothing
 * pays for the retry: the looser threshold for every search would make searches for common words
 * ("the matrix") several times slower (figures: docs/performance.md, 'Catalog search: the looser retry').
 */
export async function searchItems(em: EntityManager, input: SearchInput) {
  const rows = await searchQuery(db(em), input).execute();
  if (rows.length > 0) return rows;
  return transaction(em, async (tx) => {
    await looseWordSimilarity(db(tx)).execute();
    return searchQuery(db(tx), input).execute();
  });
}
export const discoverItems = (em: EntityManager, input: DiscoverInput) => discoverQuery(db(em), input).execute();
export const trendingItems = (em: EntityManager, input: TrendingInput) => trendingQuery(db(em), input).execute();

/** A catalog row as the catalog reads select it (itemColumns). */
export type ItemRow = Awaited<ReturnType<typeof discoverItems>>[number];

export async function countTitles(em: EntityManager): Promise<number> {
  const row = await db(em)
    .selectFrom('title')
    .select((eb) => eb.cast<number>(eb.fn.countAll(), 'integer').as('n'))
    .executeTakeFirst();
  return row?.n ?? 0;
}

/**
 * Replaces the trending roll-up (`tx`: the caller's transaction): every title watched in [since, now],
 * with its distinct watchers and watches. Returns how many titles it wrote.
 */
export async function replaceTrending(tx: EntityManager, since: Date, now: Date): Promise<number> {
  const k = db(tx);
  await k.deleteFrom('title_trending').execute();
  const row = await k
    .with('ins', (w) =>
      w
        .insertInto('title_trending')
        .columns(['title_id', 'watchers', 'watches', 'computed_at'])
        .expression((eb) =>
          eb
            .selectFrom('watch_history')
            .select((s) => ['title_id', s.fn.count('user_id').distinct().as('watchers'), s.fn.countAll().as('watches'), s.val(now).as('computed_at')])
            .where('watched_at', '>=', since)
            .where('watched_at', '<=', now)
            .groupBy('title_id'),
        )
        .returning((eb) => eb.lit(1).as('one')),
    )
    .selectFrom('ins')
    .select((eb) => eb.cast<number>(eb.fn.countAll(), 'integer').as('n'))
    .executeTakeFirst();
  return row?.n ?? 0;
}
