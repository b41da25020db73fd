// One SQL projection and one mapping for a collection item, so the page, the write answers and the change
// feed's records are the same shape.
import type { CollectionFormat, CollectionItem } from './schemas.ts';

/** Selected from `collection_item c join title t on t.id = c.title_id`. */
export const ITEM_COLUMNS = `c.id, t.movie_db_id, t.type, t.is_anime, c.season, t.name, t.year, t.poster_path, c.format, c.notes, c.added_at`;

export type ItemRow = {
  id: string;
  movie_db_id: number;
  type: 'movie' | 'show';
  is_anime: boolean;
  season: number | null;
  name: string;
  year: number;
  poster_path: string;
  format: CollectionFormat;
  notes: string;
  added_at: Date | string;
};

export function toCollectionItem(r: ItemRow): CollectionItem {
  return {
    id: Number(r.id),
    movieDbId: r.movie_db_id,
    type: r.type,
    kind: r.type,
    isAnime: r.is_anime,
    mediaSource: 'movie_db',
    sourceId: r.movie_db_id,
    season: r.season ?? 0,
    title: r.name,
    year: r.year,
    posterPath: r.poster_path,
    format: r.format,
    notes: r.notes,
    addedAt: new Date(r.added_at).toISOString(),
  };
}
