// Turns a source's ImportTitle / ImportPatch into the exact rows the SQL expects, or rejects it. Sources
// are trusted for shape but not for values: a bad number or date from a data file must cost one skipped
// item, never a failed batch (one bad value in a multi-row statement would fail the other rows too).
import { posterColor } from './poster-color.ts';
import type { ImportEpisode, ImportPatch, ImportSeason, ImportTitle } from './types.ts';

const INT_MAX = 2_147_483_647;

export type TitleRow = {
  type: 'movie' | 'show';
  movie_db_id: number;
  is_anime: boolean;
  name: string;
  original_name: string;
  tagline: string;
  year: number;
  release_date: string | null;
  overview: string;
  poster_path: string;
  backdrop_path: string;
  popularity: number;
  community_rating: number;
  vote_count: number;
  genres: string[];
  original_language: string;
  status: string;
  age_rating: string;
  runtime_minutes: number | null;
  episode_run_time_minutes: number | null;
  seasons_count: number | null;
  episodes_count: number | null;
  poster_color: string;
  poster_color_is_dark: boolean;
  tv_db_id: number | null;
  film_db_id: string | null;
  anime_db_id: number | null;
  external_ids: Record<string, string | number>;
  source: string;
};

export type SeasonRow = {
  season_number: number;
  name: string;
  overview: string;
  air_date: string | null;
  episode_count: number;
  poster_path: string;
};

export type EpisodeRow = {
  season_number: number;
  episode_number: number;
  absolute_number: number | null;
  name: string;
  overview: string;
  air_date: string | null;
  runtime_minutes: number | null;
  still_path: string;
};

export type NormalizedTitle = {
  key: string;
  mode: 'update' | 'patch';
  row: TitleRow;
  /** undefined: the source said nothing about seasons (keep what the database has). */
  seasons: SeasonRow[] | undefined;
  episodes: EpisodeRow[];
};

export type PatchRow = {
  type: 'movie' | 'show';
  movie_db_id: number;
  is_anime: boolean | null;
  anime_db_id: number | null;
  external_ids: Record<string, string | number>;
};

export function titleKey(type: string, movieDbId: number): string {
  return `${type}:${movieDbId}`;
}

/** PostgreSQL text cannot hold NUL, and JSON would carry it as \u0000, which jsonb rejects. */
function text(value: string | undefined | null): string {
  if (typeof value !== 'string') return '';
  const trimmed = value.trim();
  return trimmed.includes('\u0000') ? trimmed.replaceAll('\u0000', '') : trimmed;
}

function isId(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 1 && value <= INT_MAX;
}

function optionalInt(value: number | null | undefined, min: number): number | null {
  if (typeof value !== 'number' || !Number.isFinite(value)) return null;
  const n = Math.round(value);
  return n >= min && n <= INT_MAX ? n : null;
}

function finite(value: number | undefined, min: number, max: number): number {
  if (typeof value !== 'number' || !Number.isFinite(value)) return min;
  return Math.min(max, Math.max(min, value));
}

/** A real calendar date as YYYY-MM-DD, else null (a 2021-02-30 would fail the whole batch's cast). */
export function isoDate(value: string | null | undefined): string | null {
  if (typeof value !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(value)) return null;
  const d = new Date(`${value}T00:00:00Z`);
  return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === value ? value : null;
}

function externalIds(ids: Record<string, string | number> | undefined): Record<string, string | number> {
  const out: Record<string, string | number> = {};
  for (const [k, v] of Object.entries(ids ?? {})) {
    if (typeof v === 'number' && Number.isFinite(v)) out[k] = v;
    else if (typeof v === 'string' && text(v) !== '') out[k] = text(v);
  }
  return out;
}

export function isPatch(item: ImportTitle | ImportPatch): item is ImportPatch {
  return !('name' in item);
}

function normalizeSeason(s: ImportSeason): { season: SeasonRow; episodes: EpisodeRow[] } | undefined {
  if (!Number.isInteger(s.seasonNumber) || s.seasonNumber < 0 || s.seasonNumber > INT_MAX) return undefined;
  const byNumber = new Map<number, EpisodeRow>();
  for (const e of s.episodes ?? []) {
    const row = normalizeEpisode(s.seasonNumber, e);
    if (row) byNumber.set(row.episode_number, row);
  }
  const episodes = [...byNumber.values()].sort((a, b) => a.episode_number - b.episode_number);
  return {
    season: {
      season_number: s.seasonNumber,
      name: text(s.name) || (s.seasonNumber === 0 ? 'Specials' : `Season ${s.seasonNumber}`),
      overview: text(s.overview),
      air_date: isoDate(s.airDate),
      episode_count: Math.max(episodes.length, optionalInt(s.episodeCount, 0) ?? 0),
      poster_path: text(s.posterPath),
    },
    episodes,
  };
}

function normalizeEpisode(seasonNumber: number, e: ImportEpisode): EpisodeRow | undefined {
  if (!isId(e.episodeNumber)) return undefined;
  return {
    season_number: seasonNumber,
    episode_number: e.episodeNumber,
    absolute_number: optionalInt(e.absoluteNumber, 1),
    name: text(e.name) || `Episode ${e.episodeNumber}`,
    overview: text(e.overview),
    air_date: isoDate(e.airDate),
    runtime_minutes: optionalInt(e.runtimeMinutes, 1),
    still_path: text(e.stillPath),
  };
}

/** undefined when the title is invalid: no name, a year that is not an integer, a bad id or type. */
export function normalizeTitle(t: ImportTitle): NormalizedTitle | undefined {
  const name = text(t.name);
  if (name === '' || !Number.isInteger(t.year) || !isId(t.movieDbId)) return undefined;
  if (t.type !== 'movie' && t.type !== 'show') return undefined;
  const posterPath = text(t.posterPath);
  const color = posterColor(posterPath, name);

  let seasons: SeasonRow[] | undefined;
  const episodes: EpisodeRow[] = [];
  let seasonsCount: number | null = null;
  let episodesCount: number | null = null;
  if (t.type === 'show' && t.seasons) {
    const byNumber = new Map<number, { season: SeasonRow; episodes: EpisodeRow[] }>();
    for (const s of t.seasons) {
      const n = normalizeSeason(s);
      if (n) byNumber.set(n.season.season_number, n);
    }
    const ordered = [...byNumber.values()].sort((a, b) => a.season.season_number - b.season.season_number);
    seasons = ordered.map((n) => n.season);
    for (const n of ordered) episodes.push(...n.episodes);
    // Specials (season 0) are not counted, as the movie database counts a show's seasons and episodes.
    const regular = seasons.filter((s) => s.season_number > 0);
    seasonsCount = regular.length;
    episodesCount = regular.reduce((sum, s) => sum + s.episode_count, 0);
  }

  return {
    key: titleKey(t.type, t.movieDbId),
    mode: t.onExisting === 'patch' ? 'patch' : 'update',
    row: {
      type: t.type,
      movie_db_id: t.movieDbId,
      is_anime: t.isAnime === true,
      name,
      original_name: text(t.originalName),
      tagline: text(t.tagline),
      year: t.year,
      release_date: isoDate(t.releaseDate),
      overview: text(t.overview),
      poster_path: posterPath,
      backdrop_path: text(t.backdropPath),
      popularity: finite(t.popularity, 0, Number.MAX_VALUE),
      community_rating: finite(t.communityRating, 0, 10),
      vote_count: optionalInt(t.voteCount, 0) ?? 0,
      genres: (t.genres ?? []).map(text).filter((g) => g !== ''),
      original_language: text(t.originalLanguage),
      status: text(t.status),
      age_rating: text(t.ageRating),
      runtime_minutes: optionalInt(t.runtimeMinutes, 1),
      episode_run_time_minutes: optionalInt(t.episodeRunTimeMinutes, 1),
      seasons_count: seasonsCount,
      episodes_count: episodesCount,
      poster_color: color.color,
      poster_color_is_dark: color.isDark,
      tv_db_id: isId(t.tvDbId) ? t.tvDbId : null,
      film_db_id: text(t.filmDbId) || null,
      anime_db_id: isId(t.animeDbId) ? t.animeDbId : null,
      external_ids: externalIds(t.externalIds),
      source: text(t.source) || 'unknown',
    },
    seasons,
    episodes,
  };
}

export function normalizePatch(p: ImportPatch): PatchRow | undefined {
  if ((p.type !== 'movie' && p.type !== 'show') || !isId(p.movieDbId)) return undefined;
  return {
    type: p.type,
    movie_db_id: p.movieDbId,
    is_anime: typeof p.isAnime === 'boolean' ? p.isAnime : null,
    anime_db_id: isId(p.animeDbId) ? p.animeDbId : null,
    external_ids: externalIds(p.externalIds),
  };
}
