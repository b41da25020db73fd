// The user's totals (user_figures): every change adds its deltas in one upsert, so writers of one user
// never overwrite each other's counts.
import type { EntityManager } from '@mikro-orm/postgresql';
import { db } from '../db/query-builder.ts';
import type { Tables } from '../schema/index.ts';

type Totals = Omit<Tables['user_figures'], 'user_id'>;
export type TotalsDelta = Partial<Record<keyof Totals, number>>;
export const TOTAL_FIELDS = [
  'watches', 'minutes', 'movies', 'shows', 'episodes', 'anime_titles', 'movie_watches', 'movie_minutes', 'episode_watches', 'episode_minutes',
  'ratings', 'challenges', 'xp', 'watch_challenges', 'watch_xp', 'rating_challenges', 'rating_xp',
] as const satisfies readonly (keyof Totals)[];

/** Adds `delta` into `into` (a change's deltas gathered for one addUserFigures). */
export function addTotals(into: TotalsDelta, delta: TotalsDelta): TotalsDelta {
  for (const f of TOTAL_FIELDS) if (delta[f]) into[f] = (into[f] ?? 0) + delta[f];
  return into;
}

export async function addUserFigures(tx: EntityManager, userId: string, delta: TotalsDelta): Promise<void> {
  const fields = TOTAL_FIELDS.filter((f) => (delta[f] ?? 0) !== 0);
  if (fields.length === 0) return;
  await db(tx)
    .insertInto('user_figures')
    .values({ user_id: userId, ...Object.fromEntries(fields.map((f) => [f, delta[f]])) })
    .onConflict((oc) => oc.column('user_id').doUpdateSet((eb) => Object.fromEntries(fields.map((f) => [f, eb(eb.ref(`user_figures.${f}`), '+', eb.ref(`excluded.${f}`))]))))
    .execute();
}

/** The user's totals (all 0 for a user without any). */
export async function userFigures(em: EntityManager, userId: string): Promise<Record<(typeof TOTAL_FIELDS)[number], number>> {
  const row = await db(em).selectFrom('user_figures').select(TOTAL_FIELDS).where('user_id', '=', userId).executeTakeFirst();
  return Object.fromEntries(TOTAL_FIELDS.map((f) => [f, row?.[f] ?? 0])) as Record<(typeof TOTAL_FIELDS)[number], number>;
}
