// The user's kept figures split by kind, a grouped read of rows kept on write (never the history itself):
// the ratings held by scope (user_library_count: a few rows per user, whatever they rated).
import type { EntityManager } from '@mikro-orm/postgresql';
import { db } from '../db/query-builder.ts';

/** How many ratings the user holds of each scope (0 for a scope without any). */
export async function ratingCountsByScope(em: EntityManager, userId: string): Promise<Record<'title' | 'series' | 'season' | 'episode', number>> {
  const rows = await db(em)
    .selectFrom('user_library_count')
    .select((eb) => ['scope', eb.cast<number>(eb.fn.sum('n'), 'integer').as('n')])
    .where('user_id', '=', userId)
    .where('list', '=', 'ratings')
    .groupBy('scope')
    .execute();
  const by = { title: 0, series: 0, season: 0, episode: 0 };
  for (const r of rows) by[r.scope] = r.n;
  return by;
}
