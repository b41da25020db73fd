// One history entry as every reader sees it: `GET /me/history` items, the answers of the history
// writes, and the change feed's `data` for resource `history` (the same shape everywhere).
import type { EntityManager } from '@mikro-orm/postgresql';
import { z } from 'zod';
import { query } from '../db/sql.ts';

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

export type HistoryRow = {
  id: string;
  title_id: string;
  episode_id: string | null;
  movie_db_id: number;
  type: 'movie' | 'show';
  is_anime: boolean;
  name: string;
  year: number;
  poster_path: string;
  backdrop_path: string;
  season_number: number | null;
  episode_number: number | null;
  episode_title: string | null;
  still_path: string | null;
  runtime_minutes: number | null;
  watched_at: Date;
  /** watched_at to the microsecond, for keyset cursors (a JS Date keeps only milliseconds). */
  position_at: string;
};

/**
 * The select of history rows from `source` (a table or CTE holding watch_history columns, aliased `w`).
 * Append where / order clauses after it.
 */
export function selectHistory(source: string): string {
  return `select w.id, w.title_id, w.episode_id, t.movie_db_id, t.type, t.is_anime, t.name, t.year, t.poster_path, t.backdrop_path,
  w.season_number, w.episode_number, e.name as episode_title, e.still_path, w.runtime_minutes, w.watched_at,
  to_char(w.watched_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as position_at
from ${source} w join title t on t.id = w.title_id left join episode e on e.id = w.episode_id`;
}

export function toHistoryItem(r: HistoryRow): HistoryItem {
  return {
    id: Number(r.id),
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
    // position_at to the millisecond (truncated, as Date and to_char's MS do): parsing PostgreSQL's
    // timestamp text into a Date was the largest cost of presenting a page.
    watchedAt: `${r.position_at.slice(0, 23)}Z`,
  };
}

/** The user's entries with these ids, in the order of `ids` (ids that are not the user's are left out). */
export async function historyItemsByIds(em: EntityManager, userId: string, ids: string[]): Promise<HistoryItem[]> {
  if (ids.length === 0) return [];
  const rows = await query<HistoryRow>(em, { text: `${selectHistory('watch_history')} where w.user_id = $1 and w.id = any($2::bigint[])`, params: [userId, ids] });
  const byId = new Map(rows.map((r) => [String(r.id), toHistoryItem(r)]));
  return ids.flatMap((id) => byId.get(id) ?? []);
}
