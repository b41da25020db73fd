// One history entry as every reader sees it: `GET /me/history` items, the answers of the history
// writes, and the change feed's `data` for resource `history` (the same shape everywhere).
import type { EntityManager } from '@mikro-orm/postgresql';
import { z } from 'zod';
import { historyRowsByIds, type HistoryEntryRow } from './history-repository.ts';

export const historyItem = z
  .object({
    id: z.number().int().min(1),
    movieDbId: z.number().int().min(1),
    type: z.enum(['movie', 'show']),
    isAnime: z.boolean(),
    name: z.string().describe('The title\'s name.'),
    year: z.number().int(),
    posterPath: z.string().describe('The title\'s poster path, or "" when it has none.'),
    backdropPath: z.string().describe('The title\'s backdrop path, or "" when it has none.'),
    season: z.number().int().nullable().describe('Null for a movie.'),
    episode: z.number().int().nullable().describe('Null for a movie.'),
    episodeTitle: z.string().nullable().describe('Null for a movie.'),
    stillPath: z.string().nullable().describe('The episode\'s still path ("" when it has none); null for a movie.'),
    runtimeMinutes: z.number().int().nullable().describe('Runtime of the movie or episode when known.'),
    watchedAt: z.iso.datetime(),
  })
  .strict()
  .meta({ id: 'HistoryItem' });

export type HistoryItem = z.infer<typeof historyItem>;

export function toHistoryItem(r: HistoryEntryRow): HistoryItem {
  return { id: Number(r.id), ...entryFields(r) };
}

/** The item without its id: also the change record of a new entry, whose id the database gives. */
export function entryFields(r: Omit<HistoryEntryRow, 'id'>): Omit<HistoryItem, 'id'> {
  return {
    movieDbId: r.movie_db_id,
    type: r.type,
    isAnime: r.is_anime,
    name: r.name,
    year: r.year,
    posterPath: r.poster_path,
    backdropPath: r.backdrop_path,
    season: r.season_number,
    episode: r.episode_number,
    episodeTitle: r.episode_id === null ? null : (r.episode_title ?? ''),
    stillPath: r.episode_id === null ? null : (r.still_path ?? ''),
    runtimeMinutes: r.runtime_minutes,
    // position_at to the millisecond (truncated, as Date and to_char's MS do).
    watchedAt: `${r.position_at.slice(0, 23)}Z`,
  };
}

/** The user's entries with these ids, in the order of `ids` (ids that are not the user's are left out). */
export async function historyItemsByIds(em: EntityManager, userId: string, ids: string[]): Promise<HistoryItem[]> {
  if (ids.length === 0) return [];
  const rows = await historyRowsByIds(em, userId, ids);
  const byId = new Map(rows.map((r) => [String(r.id), toHistoryItem(r)]));
  return ids.flatMap((id) => byId.get(id) ?? []);
}
