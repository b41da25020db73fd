// Seasons and episodes by the keys a dialect that gives them ids of the service's own (the
// Trakt-compatible facade: a season's or an episode's `trakt` id is its row id) names them with: by row
// id, and seasons by show and number.
import type { EntityManager } from '@mikro-orm/postgresql';
import { db } from '../db/query-builder.ts';
import { isRowId } from './title-keys.ts';

/** The season with this row id: its show's row id and its number (null: no such season). */
export async function seasonByRowId(em: EntityManager, id: string): Promise<{ id: string; titleId: string; season: number } | null> {
  if (!isRowId(id)) return null;
  const row = await db(em).selectFrom('season').select(['id', 'title_id', 'season_number']).where('id', '=', id).executeTakeFirst();
  return row ? { id: String(row.id), titleId: String(row.title_id), season: row.season_number } : null;
}

/** The row ids of these seasons (by show row id and number), in one statement; absent seasons are left out. */
export async function seasonRowIds(em: EntityManager, refs: readonly { titleId: string; season: number }[]): Promise<Map<string, string>> {
  if (refs.length === 0) return new Map();
  const titleIds = [...new Set(refs.map((r) => r.titleId))];
  const numbers = [...new Set(refs.map((r) => r.season))];
  const rows = await db(em)
    .selectFrom('season')
    .select(['id', 'title_id', 'season_number'])
    .where((eb) => eb('title_id', '=', eb.fn.any(eb.val(titleIds))))
    .where((eb) => eb('season_number', '=', eb.fn.any(eb.val(numbers))))
    .execute();
  return new Map(rows.map((r) => [`${r.title_id}/${r.season_number}`, String(r.id)]));
}

/** The episode with this row id: its show's row id, season and number (null: no such episode). */
export async function episodeByRowId(em: EntityManager, id: string): Promise<{ id: string; titleId: string; season: number; episode: number } | null> {
  if (!isRowId(id)) return null;
  const row = await db(em).selectFrom('episode').select(['id', 'title_id', 'season_number', 'episode_number']).where('id', '=', id).executeTakeFirst();
  return row ? { id: String(row.id), titleId: String(row.title_id), season: row.season_number, episode: row.episode_number } : null;
}

/** The regular episodes (season 1 and up) of these shows, by show, season and number. */
export function regularEpisodeNumbers(em: EntityManager, titleIds: readonly string[]) {
  if (titleIds.length === 0) return Promise.resolve([]);
  return db(em)
    .selectFrom('episode')
    .select(['title_id', 'season_number', 'episode_number'])
    .where((eb) => eb('title_id', '=', eb.fn.any(eb.val([...titleIds]))))
    .where('season_number', '>', 0)
    .orderBy('title_id')
    .orderBy('season_number')
    .orderBy('episode_number')
    .execute();
}
