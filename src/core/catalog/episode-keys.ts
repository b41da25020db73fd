// Seasons and episodes named by their row ids (the id other dialects give them, e.g. the Trakt-compatible
// facade's `trakt` id of a season or an episode), and the aired episodes of shows or of seasons, each one
// statement for a whole batch; and season row ids by show and number.
import type { EntityManager } from '@mikro-orm/postgresql';
import { db } from '../db/query-builder.ts';
import { airedEpisode } from '../library/history-repository.ts';
import { isRowId } from './title-keys.ts';

export type EpisodeKey = { id: string; titleId: string; season: number; episode: number };
export type SeasonKey = { id: string; titleId: string; season: number };

const validIds = (ids: readonly string[]) => [...new Set(ids.filter(isRowId))];

/** Episodes by row id: one answer per id, in order, null where there is none. */
export async function episodesByRowId(em: EntityManager, ids: readonly string[]): Promise<(EpisodeKey | null)[]> {
  const valid = validIds(ids);
  if (valid.length === 0) return ids.map(() => null);
  const rows = await db(em).selectFrom('episode as e').select(['e.id', 'e.title_id', 'e.season_number', 'e.episode_number']).where('e.id', 'in', valid).execute();
  const found = new Map(rows.map((r) => [String(r.id), { id: String(r.id), titleId: String(r.title_id), season: r.season_number, episode: r.episode_number }]));
  return ids.map((id) => found.get(id) ?? null);
}

/** Seasons by row id: one answer per id, in order, null where there is none. */
export async function seasonsByRowId(em: EntityManager, ids: readonly string[]): Promise<(SeasonKey | null)[]> {
  const valid = validIds(ids);
  if (valid.length === 0) return ids.map(() => null);
  const rows = await db(em).selectFrom('season as s').select(['s.id', 's.title_id', 's.season_number']).where('s.id', 'in', valid).execute();
  const found = new Map(rows.map((r) => [String(r.id), { id: String(r.id), titleId: String(r.title_id), season: r.season_number }]));
  return ids.map((id) => found.get(id) ?? null);
}

/**
 * The aired episodes (an episode without an air date counts as aired) of each ref, in season and episode
 * order: of one season, or with `season` null of every regular season (1 and up). One answer per ref.
 */
export async function airedEpisodesOf(em: EntityManager, refs: ReadonlyArray<{ titleId: string; season: number | null }>): Promise<EpisodeKey[][]> {
  const titleIds = [...new Set(refs.map((r) => r.titleId))];
  if (titleIds.length === 0) return [];
  const rows = await db(em)
    .selectFrom('episode as e')
    .select(['e.id', 'e.title_id', 'e.season_number', 'e.episode_number'])
    .where('e.title_id', 'in', titleIds)
    .where(airedEpisode())
    .orderBy('e.title_id')
    .orderBy('e.season_number')
    .orderBy('e.episode_number')
    .execute();
  const episodes = rows.map((r) => ({ id: String(r.id), titleId: String(r.title_id), season: r.season_number, episode: r.episode_number }));
  return refs.map((ref) => episodes.filter((e) => e.titleId === ref.titleId && (ref.season === null ? e.season > 0 : e.season === ref.season)));
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
