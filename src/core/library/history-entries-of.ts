// The user's history entries of some movies, shows, seasons and episodes, or with some ids (their ids and
// what they are of only): what removing those watches removes, found in one statement for the batch.
import type { EntityManager } from '@mikro-orm/postgresql';
import { db } from '../db/query-builder.ts';

export type EntryOf = { id: number; titleId: string; episodeId: string | null };

export type EntriesWanted = {
  /** Movies' titles: their own watches. */
  movieTitleIds?: readonly string[];
  /** Shows' titles: the watches of every episode. */
  showTitleIds?: readonly string[];
  /** Seasons of shows: the watches of the season's episodes. */
  seasons?: ReadonlyArray<{ titleId: string; season: number }>;
  episodeIds?: readonly string[];
  /** Entries by their ids (the user's only). */
  entryIds?: readonly number[];
};

/** The user's entries any part of `wanted` names, by id. */
export async function historyEntriesOf(em: EntityManager, userId: string, wanted: EntriesWanted): Promise<EntryOf[]> {
  const { movieTitleIds = [], showTitleIds = [], seasons = [], episodeIds = [], entryIds = [] } = wanted;
  if (movieTitleIds.length + showTitleIds.length + seasons.length + episodeIds.length + entryIds.length === 0) return [];
  const rows = await db(em)
    .selectFrom('watch_history as w')
    .select(['w.id', 'w.title_id', 'w.episode_id'])
    .where('w.user_id', '=', userId)
    .where((eb) => {
      const ors = [];
      if (movieTitleIds.length) ors.push(eb.and([eb('w.title_id', 'in', [...movieTitleIds]), eb('w.episode_id', 'is', null)]));
      if (showTitleIds.length) ors.push(eb.and([eb('w.title_id', 'in', [...showTitleIds]), eb('w.episode_id', 'is not', null)]));
      for (const s of seasons) ors.push(eb.and([eb('w.title_id', '=', s.titleId), eb('w.season_number', '=', s.season), eb('w.episode_id', 'is not', null)]));
      if (episodeIds.length) ors.push(eb('w.episode_id', 'in', [...episodeIds]));
      if (entryIds.length) ors.push(eb('w.id', 'in', entryIds.map(String)));
      return eb.or(ors);
    })
    .orderBy('w.id')
    .execute();
  return rows.map((r) => ({ id: Number(r.id), titleId: String(r.title_id), episodeId: r.episode_id === null ? null : String(r.episode_id) }));
}
