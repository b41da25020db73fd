// Maps the title module's rows to its wire shapes (schemas.ts). Image URLs are made the catalog's way
// (catalog/present.ts); timestamps read from JSON come back as ISO 8601 with Z.
import { imageUrl } from '../catalog/present.ts';
import type { EpisodeState, SeasonSummary } from './schemas.ts';
import type { EpisodeRow, SeasonRow, ShowRow } from './seasons-repository.ts';

export const POSTER_SIZE = 'w500';
export const STILL_SIZE = 'w300';

/** A timestamp read from the database or from JSON it built, as ISO 8601 with Z. */
export const isoTime = (value: string | Date): string => new Date(value).toISOString();

export function toShowRef(row: ShowRow, imageBaseUrl: string) {
  return { movieDbId: row.movie_db_id, name: row.name, year: row.year, posterUrl: imageUrl(imageBaseUrl, POSTER_SIZE, row.poster_path), isAnime: row.is_anime };
}

export function toSeasonSummary(row: SeasonRow, imageBaseUrl: string): SeasonSummary {
  return {
    seasonNumber: row.season_number,
    name: row.name,
    overview: row.overview,
    airDate: row.air_date,
    posterUrl: imageUrl(imageBaseUrl, POSTER_SIZE, row.poster_path),
    episodeCount: row.episode_count,
    airedEpisodes: row.aired_episodes,
    watchedEpisodes: row.watched_episodes ?? null,
  };
}

/** `historyVisible`: whether the token may see the user's watches (else watched, watchedAt, plays are null). */
export function toEpisodeState(row: EpisodeRow, imageBaseUrl: string, historyVisible: boolean): EpisodeState {
  return {
    seasonNumber: row.season_number,
    episodeNumber: row.episode_number,
    absoluteNumber: row.absolute_number,
    name: row.name,
    overview: row.overview,
    airDate: row.air_date,
    runtimeMinutes: row.runtime_minutes,
    stillUrl: imageUrl(imageBaseUrl, STILL_SIZE, row.still_path),
    aired: row.aired,
    watched: historyVisible ? (row.plays ?? 0) > 0 : null,
    // A time from the statement's JSON, as text.
    watchedAt: historyVisible && row.last_watched ? isoTime(row.last_watched) : null,
    plays: historyVisible ? (row.plays ?? 0) : null,
  };
}
