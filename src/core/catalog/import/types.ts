// The shape every catalog source produces, and the importer's interface. A source yields titles; the
// importer upserts them by (type, movie_db_id), so a re-import updates and never duplicates.

export type ImportEpisode = {
  episodeNumber: number;
  absoluteNumber?: number | null;
  name: string;
  overview?: string;
  airDate?: string | null; // YYYY-MM-DD
  runtimeMinutes?: number | null;
  stillPath?: string;
};

export type ImportSeason = {
  seasonNumber: number;
  name: string;
  overview?: string;
  airDate?: string | null;
  posterPath?: string;
  /** When known, episodes; otherwise only episodeCount. */
  episodes?: ImportEpisode[];
  episodeCount?: number;
};

export type ImportTitle = {
  type: 'movie' | 'show';
  movieDbId: number;
  isAnime: boolean;
  name: string;
  originalName?: string;
  tagline?: string;
  year: number;
  releaseDate?: string | null; // YYYY-MM-DD
  overview?: string;
  posterPath?: string;
  backdropPath?: string;
  popularity?: number;
  communityRating?: number; // 0..10
  voteCount?: number;
  genres?: string[];
  originalLanguage?: string;
  status?: string;
  ageRating?: string;
  runtimeMinutes?: number | null;
  episodeRunTimeMinutes?: number | null;
  tvDbId?: number | null;
  filmDbId?: string | null;
  animeDbId?: number | null;
  externalIds?: Record<string, string | number>;
  seasons?: ImportSeason[];
  /** Which source produced it: movies_dataset, anime_data, synthetic, movie_db_api. */
  source: string;
  /**
   * What to do when the title already exists. 'update' (the default): this source is authoritative and
   * overwrites the row. 'patch': insert the whole title only if it is missing; otherwise apply just the
   * ImportPatch fields (isAnime, animeDbId, externalIds). For a secondary source (anime data) that knows
   * a title is anime but holds poorer details than the primary source (the movie dataset).
   */
  onExisting?: 'update' | 'patch';
};

/**
 * A patch applied to titles that already exist (e.g. anime data marking a movie of the movie dataset as
 * anime and adding its anime database id). Keys are (type, movieDbId).
 */
export type ImportPatch = {
  type: 'movie' | 'show';
  movieDbId: number;
  isAnime?: boolean;
  animeDbId?: number | null;
  externalIds?: Record<string, string | number>;
};

/** A source's answer for a title did not have the shape the source documents: that title is refused, not stored in part. */
export class SourceAnswerError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SourceAnswerError';
  }
}

export interface CatalogSource {
  readonly name: string;
  /** Number of items it will yield, when known up front (for the progress bar). */
  estimate?(): Promise<number | undefined>;
  items(): AsyncIterable<ImportTitle | ImportPatch>;
  /** Records the source itself dropped (malformed, duplicate), read after items() ends; added to `skipped`. */
  skipped?(): number;
}

export type ImportProgress = (done: number, total: number | undefined, source: string) => void;

export type ImportResult = { source: string; titles: number; seasons: number; episodes: number; patched: number; skipped: number };
