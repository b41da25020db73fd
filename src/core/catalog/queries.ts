// The public catalog reads as statements (text and parameters), for the benchmark's bare-`pg` baseline:
// built by the same functions the service runs (repository.ts), so both run exactly the same text.
import type { Sql } from '../db/sql.ts';
import { offline, toSql } from '../db/compile.ts';
import { discoverQuery, searchQuery, trendingQuery } from './repository.ts';
import type { DiscoverInput, SearchInput, TrendingInput } from './schemas.ts';

export const searchSql = (input: SearchInput): Sql => toSql(searchQuery(offline, input));
export const discoverSql = (input: DiscoverInput): Sql => toSql(discoverQuery(offline, input));
export const trendingSql = (input: TrendingInput): Sql => toSql(trendingQuery(offline, input));
