// One mapping for a collection item (read by repository.ts's one projection), so the page, the write
// answers and the change feed's records are the same shape.
import type { ItemRow } from './repository.ts';
import type { CollectionItem } from './schemas.ts';

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
