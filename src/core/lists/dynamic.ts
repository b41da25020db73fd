// The titles of a dynamic list: its filters run over the catalog, in the filters' sort order.
import type { EntityManager } from '@mikro-orm/postgresql';
import { query, sqlParams } from '../db/sql.ts';
import type { DynamicFilters } from './schemas.ts';

const ORDER = {
  popularity: 't.popularity desc, t.id',
  rating: 't.community_rating desc, t.vote_count desc, t.id',
  release_date: 't.release_date desc nulls last, t.id',
  name: 't.search_name, t.id',
} as const;

export async function dynamicTitleIds(em: EntityManager, f: DynamicFilters): Promise<string[]> {
  const { params, p } = sqlParams();
  const where: string[] = [];
  if (f.type) where.push(`t.type = ${p(f.type)}`);
  if (f.anime !== undefined) where.push(`t.is_anime = ${p(f.anime)}`);
  if (f.genres) where.push(`exists (select 1 from unnest(t.genres) g where lower(g) = any(${p(f.genres.map((g) => g.toLowerCase()))}::text[]))`);
  if (f.yearFrom !== undefined) where.push(`t.year >= ${p(f.yearFrom)}`);
  if (f.yearTo !== undefined) where.push(`t.year <= ${p(f.yearTo)}`);
  if (f.minRating !== undefined) where.push(`t.community_rating >= ${p(f.minRating)}`);
  if (f.language) where.push(`t.original_language = ${p(f.language)}`);
  const rows = await query<{ id: string }>(em, {
    text: `select t.id from title t ${where.length ? `where ${where.join(' and ')}` : ''} order by ${ORDER[f.sort]} limit ${p(f.size)}`,
    params,
  });
  return rows.map((r) => String(r.id));
}
