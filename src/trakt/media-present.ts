// Trakt's media objects made from the catalog's full rows (core/titles/rows-repository.ts): movies and shows in the
// standard form `{title, year, ids}` (ids.ts) and with `extended=full`'s fields, seasons and episodes.
// What the service does not hold is null, or Trakt's own empty value where its clients expect one
// (comment_count 0, available_translations [], rating and votes 0 for seasons and episodes, which the
// catalog does not rate).
import { toResolved } from '../core/catalog/resolve.ts';
import { titleSlug } from '../core/catalog/title-keys.ts';
import type { ShowEpisodeRow, ShowSeasonRow, TitleRow } from '../core/titles/rows-repository.ts';
import { standardTitle } from './ids.ts';

/** Whether the query asks for `extended=full` (Trakt's extended is a comma-separated list). */
export const wantsFull = (query: Record<string, string | undefined>): boolean => extendedOf(query).includes('full');
export const extendedOf = (query: Record<string, string | undefined>): string[] => (query.extended ?? '').split(',').map((s) => s.trim());

/** The statuses Trakt's objects carry; the catalog's (the movie database's, e.g. "Returning Series") map onto them in lower case. */
const TRAKT_STATUSES = new Set(['released', 'planned', 'post production', 'canceled', 'in production', 'rumored', 'ended', 'returning series', 'pilot', 'continuing', 'upcoming']);

const text = (s: string | null | undefined): string | null => (s ? s : null);
/** A calendar day as Trakt's timestamps are written: the catalog knows the day, not the hour (midnight UTC). */
export const dayTime = (day: string | null): string | null => (day ? `${day}T00:00:00.000Z` : null);
const status = (s: string): string | null => (TRAKT_STATUSES.has(s.toLowerCase()) ? s.toLowerCase() : null);

/** The fields both a movie's and a show's `extended=full` carry. */
function commonFull(row: TitleRow) {
  return {
    tagline: text(row.tagline),
    overview: text(row.overview),
    // The catalog's rating: the metadata source's average and votes (the service's users do not comment).
    rating: row.community_rating,
    votes: row.vote_count,
    comment_count: 0,
    country: null,
    trailer: null,
    homepage: null,
    status: status(row.status),
    updated_at: new Date(row.updated_at).toISOString(),
    language: text(row.original_language),
    languages: row.original_language ? [row.original_language] : [],
    available_translations: [],
    // Trakt names genres by slug ("science-fiction"); the catalog keeps the source's names.
    genres: row.genres.map((g) => titleSlug(g, null)),
    subgenres: [],
    certification: text(row.age_rating),
    original_title: text(row.original_name) ?? row.name,
  };
}

/** A movie or show as Trakt's objects carry it: standard, or with `extended=full`'s fields. */
export function traktTitle(row: TitleRow, full: boolean) {
  const standard = standardTitle(toResolved({ ...row, runtime_minutes: row.runtime_minutes ?? row.episode_run_time_minutes }));
  if (!full) return standard;
  if (row.type === 'movie') {
    return { ...standard, ...commonFull(row), released: row.release_date, runtime: row.runtime_minutes, after_credits: null, during_credits: null };
  }
  return {
    ...standard,
    ...commonFull(row),
    first_aired: dayTime(row.release_date),
    airs: { day: null, time: null, timezone: null },
    runtime: row.episode_run_time_minutes,
    total_runtime: null,
    network: null,
    aired_episodes: row.aired_episodes ?? 0,
  };
}

/** An episode: `{season, number, title, ids}`, with `full` its details. */
export function traktEpisode(e: ShowEpisodeRow, full: boolean) {
  const standard = {
    season: e.season_number,
    number: e.episode_number,
    title: e.name || null,
    // The service keeps no outside ids for episodes: `trakt` is the episode's row id.
    ids: { trakt: Number(e.id), tvdb: null, imdb: null, tmdb: null },
  };
  if (!full) return standard;
  return {
    ...standard,
    number_abs: e.absolute_number,
    overview: text(e.overview),
    first_aired: dayTime(e.air_date),
    updated_at: null,
    rating: 0,
    votes: 0,
    comment_count: 0,
    available_translations: [],
    runtime: e.runtime_minutes,
    episode_type: null,
    original_title: null,
    after_credits: null,
    during_credits: null,
  };
}

/** A season: `{number, ids}`, with `full` its counts and details; `episodes` when asked for. */
export function traktSeason(s: ShowSeasonRow, opts: { full: boolean; episodes: boolean }) {
  const standard = { number: s.season_number, ids: { trakt: Number(s.id), tvdb: null, tmdb: null } };
  const details = opts.full
    ? {
        rating: 0,
        votes: 0,
        episode_count: s.episode_count,
        aired_episodes: s.aired_episodes,
        title: s.name || null,
        overview: text(s.overview),
        first_aired: dayTime(s.air_date),
        updated_at: null,
        network: null,
      }
    : {};
  return { ...standard, ...details, ...(opts.episodes ? { episodes: s.episodes.map((e) => traktEpisode(e, opts.full)) } : {}) };
}
