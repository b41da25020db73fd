// Maps a catalog row to the public catalog item: no field is null on the wire (unknowns are "" or 0).
import type { CatalogItem } from './schemas.ts';

/** The columns every catalog query selects for an item. */
export const ITEM_COLUMNS = `t.type, t.movie_db_id, t.category, t.is_anime, t.name, t.year, t.overview, t.poster_path,
  t.backdrop_path, t.community_rating, to_char(t.release_date, 'YYYY-MM-DD') as release_date, t.popularity,
  coalesce(t.runtime_minutes, t.episode_run_time_minutes, 0) as runtime_minutes, t.genres, t.age_rating,
  t.original_language, t.poster_color, t.poster_color_is_dark`;

export type ItemRow = {
  type: 'movie' | 'show';
  movie_db_id: number;
  category: 'movie' | 'show' | 'anime';
  is_anime: boolean;
  name: string;
  year: number;
  overview: string;
  poster_path: string;
  backdrop_path: string;
  community_rating: number;
  release_date: string | null;
  popularity: number;
  runtime_minutes: number;
  genres: string[];
  age_rating: string;
  original_language: string;
  poster_color: string;
  poster_color_is_dark: boolean;
};

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
