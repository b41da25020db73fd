// Maps a catalog row to the public catalog item: no field is null on the wire (unknowns are "" or 0).
import type { ItemRow } from './repository.ts';
import type { CatalogItem } from './schemas.ts';

export function imageUrl(imageBaseUrl: string, size: string, imagePath: string): string {
  return imagePath ? `${imageBaseUrl}/${size}${imagePath}` : '';
}

export function toCatalogItem(row: ItemRow, imageBaseUrl: string): CatalogItem {
  return {
    id: `${row.type}-${row.movie_db_id}`,
    movieDbId: row.movie_db_id,
    type: row.type,
    category: row.category,
    isAnime: row.is_anime,
    name: row.name,
    year: row.year,
    overview: row.overview,
    posterUrl: imageUrl(imageBaseUrl, 'w500', row.poster_path),
    backdropUrl: imageUrl(imageBaseUrl, 'w1280', row.backdrop_path),
    communityRating: row.community_rating,
    releaseDate: row.release_date ?? '',
    posterPath: row.poster_path,
    backdropPath: row.backdrop_path,
    popularity: row.popularity,
    runtimeMinutes: row.runtime_minutes,
    genres: row.genres,
    ageRating: row.age_rating,
    originalLanguage: row.original_language,
    posterColor: row.poster_color,
    posterColorIsDark: row.poster_color_is_dark,
  };
}
