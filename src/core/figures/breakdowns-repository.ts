// The user's kept figures split by kind, each one grouped read of rows kept on write (never the history
// itself): the ratings held by scope (user_library_count) and plays and minutes by title type
// (user_title_figures, a row per title the user watched).
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

/** The user's plays and minutes watched of movies and of shows (their episodes). */
export async function playsByTitleType(em: EntityManager, userId: string): Promise<Record<'movie' | 'show', { plays: number; minutes: number }>> {
  const rows = await db(em)
    .selectFrom('user_title_figures as f')
    .innerJoin('title as t', 't.id', 'f.title_id')
    .select((eb) => ['t.type', eb.cast<number>(eb.fn.sum('f.watches'), 'integer').as('plays'), eb.cast<number>(eb.fn.sum('f.minutes'), 'integer').as('minutes')])
    .where('f.user_id', '=', userId)
    .groupBy('t.type')
    .execute();
  const by = { movie: { plays: 0, minutes: 0 }, show: { plays: 0, minutes: 0 } };
  for (const r of rows) by[r.type] = { plays: r.plays, minutes: r.minutes };
  return by;
}
