// Wire shapes and inputs of the title module: the title detail (`TitleDetail` in the platform OpenAPI document), seasons,
// episodes and the calendar (their shapes are ours, documented here).
// Inputs are typed as a caller writes them: the REST facade reads query-string and path text into numbers.
import { z } from 'zod';
import { wireDay } from '../wire/dates.ts';
import { ID_MAX, wireInt } from '../wire/numbers.ts';
import { titleCategory, titleType } from '../catalog/schemas.ts';

/** A positive 32-bit integer (ids beyond it cannot exist in the catalog). */
const positiveInt = (max = ID_MAX) => wireInt(1, max);
const seasonNumber = wireInt(0, 10_000);

const RATING_SCOPES = ['title', 'series', 'season', 'episode'] as const;
export type TitleRatingScope = (typeof RATING_SCOPES)[number];

export const titleDetailInput = z.strictObject({
  type: titleType,
  id: positiveInt(),
  region: z.string().regex(/^[A-Za-z]{2}$/, 'must be exactly 2 letters (ISO 3166-1 alpha-2)').optional(),
  scope: z.enum(RATING_SCOPES).optional(),
});
export type TitleDetailInput = z.infer<typeof titleDetailInput>;

export const showInput = z.strictObject({ id: positiveInt() });
export const seasonInput = z.strictObject({ id: positiveInt(), season: seasonNumber });
export const episodeInput = z.strictObject({ id: positiveInt(), season: seasonNumber, episode: positiveInt(100_000) });
export type SeasonInput = z.infer<typeof seasonInput>;
export type EpisodeInput = z.infer<typeof episodeInput>;

const CALENDAR_MAX_DAYS = 31;
const CALENDAR_DEFAULT_DAYS = 7;

/** A real calendar day written YYYY-MM-DD (2026-02-30 is refused), within the wire's years. */
const isoDay = wireDay();

export const calendarInput = z.strictObject({
  startDate: isoDay.optional(),
  days: wireInt(1, CALENDAR_MAX_DAYS).default(CALENDAR_DEFAULT_DAYS),
});
export type CalendarInput = z.infer<typeof calendarInput>;

const day = z.string().describe('YYYY-MM-DD');

/** A show as the season, episode and calendar records name it. */
const showRef = z
  .object({ movieDbId: z.number().int().min(1), name: z.string(), year: z.number().int(), posterUrl: z.string(), isAnime: z.boolean() })
  .meta({ id: 'ShowRef' });

const seasonSummary = z
  .object({
    seasonNumber: z.number().int().min(0).describe('0 holds specials.'),
    name: z.string(),
    overview: z.string(),
    airDate: day.nullable(),
    posterUrl: z.string().describe('"" when the season has no poster.'),
    episodeCount: z.number().int().min(0),
    airedEpisodes: z.number().int().min(0).describe('Episodes whose air date is today (UTC) or earlier.'),
    watchedEpisodes: z.number().int().min(0).nullable().describe('Distinct episodes of the season the user watched; null unless the token has history:read.'),
  })
  .meta({ id: 'SeasonSummary' });
export type SeasonSummary = z.infer<typeof seasonSummary>;

const episodeState = z
  .object({
    seasonNumber: z.number().int().min(0),
    episodeNumber: z.number().int().min(1),
    absoluteNumber: z.number().int().nullable(),
    name: z.string(),
    overview: z.string(),
    airDate: day.nullable(),
    runtimeMinutes: z.number().int().nullable(),
    stillUrl: z.string().describe('"" when the episode has no still.'),
    aired: z.boolean(),
    watched: z.boolean().nullable().describe('null unless the token has history:read (also watchedAt, plays).'),
    watchedAt: z.iso.datetime().nullable().describe('The latest watch.'),
    plays: z.number().int().min(0).nullable(),
  })
  .meta({ id: 'EpisodeState' });
export type EpisodeState = z.infer<typeof episodeState>;

const userRating = z.number().nullable().describe("The user's rating (1-10) of it; null unless the token has ratings:read, or when unrated.");

export const seasonList = z.object({ show: showRef, seasons: z.array(seasonSummary) }).meta({ id: 'SeasonList' });
export const seasonDetail = z
  .object({ show: showRef, season: seasonSummary.extend({ rating: userRating }), episodes: z.array(episodeState) })
  .meta({ id: 'SeasonDetail' });
export const episodeDetail = z.object({ show: showRef, episode: episodeState.extend({ rating: userRating }) }).meta({ id: 'EpisodeDetail' });

const recommendation = z
  .object({ movieDbId: z.number().int().min(1), type: titleType, name: z.string(), year: z.number().int(), posterUrl: z.string(), isAnime: z.boolean() })
  .meta({ id: 'TitleRecommendation' });

const nativeTitle = z
  .object({
    movieDbId: z.number().int().min(1),
    type: titleType,
    category: titleCategory,
    isAnime: z.boolean(),
    name: z.string(),
    tagline: z.string().optional(),
    year: z.number().int(),
    releaseDate: z.string().optional().describe('YYYY-MM-DD; absent when unknown.'),
    overview: z.string(),
    posterUrl: z.string(),
    backdropUrl: z.string(),
    communityRating: z.number().describe("The catalog source's average on a 0-10 scale."),
    genres: z.array(z.string()),
    originalLanguage: z.string().optional(),
    status: z.string().optional(),
    ageRating: z.string().optional(),
    runtimeMinutes: z.number().int().optional(),
    episodeRunTimeMinutes: z.number().int().optional(),
    seasonsCount: z.number().int().optional(),
    episodesCount: z.number().int().optional(),
    seasonStats: z.array(seasonSummary).optional().describe('Shows: one entry per season; movies: empty.'),
    recommendations: z.array(recommendation).optional().describe('Up to 10 similar titles of the same type: most shared genres, then popularity.'),
  })
  .meta({ id: 'NativeTitle' });
export type NativeTitle = z.infer<typeof nativeTitle>;

const titleInteraction = z
  .strictObject({
    watchedAt: z.iso.datetime().nullable(),
    rating: z.number().nullable(),
    isFavourite: z.boolean(),
    showStatus: z.string().nullable(),
  })
  .meta({ id: 'TitleInteraction' });

const watchHistoryEntry = z
  .object({ id: z.number().int().min(1), watchedAt: z.iso.datetime(), season: z.number().int().nullable(), episode: z.number().int().nullable() })
  .meta({ id: 'TitleWatchHistoryEntry' });

// The lists and collection modules build these two; z.object (not strict) so a field they add later is
// dropped from the wire instead of failing the response. No schema ids: those modules own the names.
const listPreviewPoster = z.object({ posterPath: z.string(), movieDbId: z.number().int().min(1), type: titleType });

const titleUserList = z
  .object({
    id: z.number().int().min(1),
    name: z.string(),
    description: z.string().nullable(),
    isPublic: z.boolean(),
    isWatchlist: z.boolean(),
    isDynamicList: z.boolean(),
    isCollaborative: z.boolean(),
    isFeatured: z.boolean(),
    lastSyncedAt: z.iso.datetime().nullable(),
    ownerUsername: z.string().nullable(),
    itemCount: z.number().int().min(0),
    itemBreakdown: z.object({ movies: z.number().int().min(0), shows: z.number().int().min(0), anime: z.number().int().min(0) }),
    createdAt: z.iso.datetime(),
    previewPosters: z.array(listPreviewPoster),
    containsItemId: z.number().int().min(1).nullable(),
  });

const collectionStatus = z.object({
  owned: z.boolean(),
  formats: z.array(z.string()),
  items: z.array(z.object({ id: z.number().int(), format: z.string(), season: z.number().int() })),
});

export const titleDetail = z
  .strictObject({
    title: nativeTitle,
    interaction: titleInteraction.nullable().describe('null unless the token has ratings:read.'),
    watchHistory: z.array(watchHistoryEntry).describe("The user's latest 100 watches of the title, newest first; empty unless the token has history:read."),
    userLists: z.array(titleUserList).nullable().describe('null unless the token has lists:read.'),
    collectionStatus: collectionStatus.nullable().describe('null unless the token has collection:read.'),
    featuredLists: z.array(z.record(z.string(), z.unknown())),
    communityRating: z.strictObject({ average: z.number().nullable(), count: z.number().int().min(0) }).describe("Users' ratings of the title as a whole (title or series scope)."),
    externalRatings: z
      .strictObject({ ratings: z.array(z.object({ source: z.string(), value: z.number(), votes: z.number().int() })) })
      .nullable()
      .describe('The catalog source\'s rating (source `movie_db`); null when it has no votes.'),
  })
  .meta({ id: 'TitleDetail' });
export type TitleDetail = z.infer<typeof titleDetail>;

const calendarItem = z
  .object({
    show: showRef,
    season: z.number().int().min(0),
    episode: z.number().int().min(1),
    episodeTitle: z.string(),
    airDate: day,
    runtimeMinutes: z.number().int().nullable(),
    watched: z.boolean().nullable().describe('null unless the token has history:read.'),
  })
  .meta({ id: 'CalendarItem' });

export const calendar = z
  .object({ startDate: day, days: z.number().int().min(1).max(CALENDAR_MAX_DAYS), items: z.array(calendarItem) })
  .meta({ id: 'Calendar' });
export type Calendar = z.infer<typeof calendar>;
