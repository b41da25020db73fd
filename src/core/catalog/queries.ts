// The public catalog reads as statements (text and parameters), for the benchmark's bare-`pg` baseline:
// built by the same functions the service runs (repository.ts), so both run exactly the same text.
import type { Sql } from '../db/sql.ts';
import { offline, toSql } from '../db/compile.ts';
import { discoverQuery, looseWordSimilarity, searchQuery, trendingQuery } from './repository.ts';
import type { DiscoverInput, SearchInput, TrendingInput } from './schemas.ts';

export const searchSql = (input: SearchInput): Sql => toSql(searchQuery(offline, input));
/** What the service runs when a search found nothing (searchItems): the search again, looser, in a transaction. */
export const searchRetrySql = (input: SearchInput): Sql[] => [{ text: 'begin', params: [] }, toSql(looseWordSimilarity(offline)), searchSql(input), { text: 'commit', params: [] }];
export const discoverSql = (input: DiscoverInput): Sql => toSql(discoverQuery(offline, input));
export const trendingSql = (input: TrendingInput): Sql => toSql(trendingQuery(offline, input));
