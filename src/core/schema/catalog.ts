// The tables of the catalog: titles, their seasons and episodes, the trending and recommendation
// rollups computed from it, and the demo import's progress.
import { defineEntity, p } from '@mikro-orm/core';

export const Title = defineEntity({
  name: 'Title',
  indexes: [
    {
      name: 'title_anime_db_id',
      where: 'anime_db_id IS NOT NULL',
      properties: ['animeDbId'],
    },
    {
      name: 'title_film_db_id',
      where: 'film_db_id IS NOT NULL',
      properties: ['filmDbId'],
    },
    { name: 'title_genres', properties: ['genres'], type: 'gin' },
    { name: 'title_match_name', properties: ['matchName', 'id'] },
    { name: 'title_name', properties: ['searchName', 'id'] },
    {
      name: 'title_popularity',
      properties: ['popularity', 'id'],
      columns: [{ name: 'popularity', sort: 'DESC' }, { name: 'id' }],
    },
    {
      name: 'title_rating',
      properties: ['communityRating', 'id'],
      columns: [{ name: 'communityRating', sort: 'DESC' }, { name: 'id' }],
    },
    {
      name: 'title_release_date',
      properties: ['releaseDate', 'id'],
      columns: [
        { name: 'releaseDate', sort: 'DESC', nulls: 'LAST' },
        { name: 'id' },
      ],
    },
    { name: 'title_search_name_trgm', properties: ['searchName'], type: 'gin' },
    { name: 'title_search_vector', properties: ['searchVector'], type: 'gin' },
    // The catalog refresh (catalog/fetch/refresh-repository.ts) walks it least recently refreshed first and
    // reads the rule's columns from it alone (an index-only scan); synthetic titles are never refreshed.
    {
      name: 'title_refresh_due',
      properties: ['refreshedAt', 'id'],
      columns: [{ name: 'refreshedAt', nulls: 'FIRST' }, { name: 'id' }],
      include: ['type', 'movieDbId', 'status'],
      where: 'source <> \'synthetic\'::text',
    },
    {
      name: 'title_tv_db_id',
      where: 'tv_db_id IS NOT NULL',
      properties: ['tvDbId'],
    },
  ],
  uniques: [
    { name: 'title_type_movie_db_id_unique', properties: ['type', 'movieDbId'] },
  ],
  checks: [
    {
      name: 'title_community_rating_check',
      expression: 'community_rating >= (0 precision) AND community_rating <= (10 precision)',
    },
    { name: 'title_movie_db_id_check', expression: 'movie_db_id >= 1' },
    { name: 'title_name_check', expression: 'name <> \'\'::text' },
  ],
  properties: {

    id: p.bigint('string').primary().generated('identity'),

    type: p.enum(['movie', 'show']),

    movieDbId: p.integer(),

    category: p.enum(['movie', 'show', 'anime']),
    isAnime: p.boolean().default(false),

    name: p.text(),
    originalName: p.text().default(''),
    tagline: p.text().default(''),

    year: p.integer(),

    releaseDate: p.date().nullable(),
    overview: p.text().default(''),
    posterPath: p.text().default(''),
    backdropPath: p.text().default(''),
    popularity: p.double().$type<number>().default(0),
    communityRating: p.double().$type<number>().default(0),
    voteCount: p.integer().default(0),
    genres: p.array().defaultRaw(`'{}'::text[]`),
    originalLanguage: p.text().default(''),
    status: p.text().default(''),
    ageRating: p.text().default(''),

    runtimeMinutes: p.integer().nullable(),

    episodeRunTimeMinutes: p.integer().nullable(),

    seasonsCount: p.integer().nullable(),

    episodesCount: p.integer().nullable(),
    posterColor: p.text().default(''),
    posterColorIsDark: p.boolean().default(true),

    tvDbId: p.integer().nullable(),

    filmDbId: p.text().nullable(),

    animeDbId: p.integer().nullable(),
    externalIds: p.json().defaultRaw(`'{}'::jsonb`),

    source: p.text(),

    searchName: p.text().generated('lower(name) stored').nullable(),

    /** The name as title + year matching compares it (the migration's title_match_name()). */
    matchName: p.text().generated('title_match_name(name) stored').nullable(),

    searchVector: p.string().columnType('tsvector').generated('to_tsvector(\'simple\'::regconfig, ((name || \' \'::text) || original_name)) stored').nullable(),

    createdAt: p.datetime().defaultRaw(`now()`),

    updatedAt: p.datetime().defaultRaw(`now()`),

    /** When the metadata provider last answered for this title (null: never; an imported dataset's title). */
    refreshedAt: p.datetime().nullable(),
  },
});

export const Season = defineEntity({
  name: 'Season',
  uniques: [
    { name: 'season_title_number_unique', properties: ['title', 'seasonNumber'] },
  ],
  checks: [
    { name: 'season_season_number_check', expression: 'season_number >= 0' },
  ],
  properties: {

    id: p.bigint('string').primary().generated('identity'),
    title: () => p.manyToOne(Title).updateRule('no action').deleteRule('cascade'),

    seasonNumber: p.integer(),

    name: p.text(),
    overview: p.text().default(''),

    airDate: p.date().nullable(),
    episodeCount: p.integer().default(0),
    posterPath: p.text().default(''),
  },
});

export const Episode = defineEntity({
  name: 'Episode',
  indexes: [{ name: 'episode_air_date', properties: ['airDate', 'title'] }],
  uniques: [
    {
      name: 'episode_title_number_unique',
      properties: ['title', 'seasonNumber', 'episodeNumber'],
    },
  ],
  checks: [
    { name: 'episode_episode_number_check', expression: 'episode_number >= 1' },
    { name: 'episode_season_number_check', expression: 'season_number >= 0' },
  ],
  properties: {

    id: p.bigint('string').primary().generated('identity'),
    title: () => p.manyToOne(Title).updateRule('no action').deleteRule('cascade'),

    seasonNumber: p.integer(),

    episodeNumber: p.integer(),

    absoluteNumber: p.integer().nullable(),

    name: p.text(),
    overview: p.text().default(''),

    airDate: p.date().nullable(),

    runtimeMinutes: p.integer().nullable(),
    stillPath: p.text().default(''),
  },
});

export const TitleTrending = defineEntity({
  name: 'TitleTrending',
  properties: {
    title: () => p.oneToOne(Title).owner().primary().updateRule('no action'),

    watchers: p.integer(),

    watches: p.integer(),

    computedAt: p.datetime(),
  },
});

/**
 * Each title's recommendations, best first (catalog/recommendations.ts computes them from the whole catalog):
 * the title detail reads one row by its key instead of ranking the catalog per request. A title without
 * a row has not been computed yet; a title with no genre has an empty list.
 */
export const TitleRecommendation = defineEntity({
  name: 'TitleRecommendation',
  properties: {
    title: () => p.oneToOne(Title).owner().primary().updateRule('no action').deleteRule('cascade'),

    recommendedIds: p.array<string>().columnType('bigint[]'),

    computedAt: p.datetime(),
  },
});

/**
 * The demo catalog import's progress (catalog/import/demo-state.ts): 'started' before its first write, then each
 * step's name once that step has committed. A start that finds 'started' without every step finishes
 * the import; a start that finds them all does nothing.
 */
export const DemoImportStep = defineEntity({
  name: 'DemoImportStep',
  properties: {
    step: p.text().primary(),

    recordedAt: p.datetime().defaultRaw(`now()`),
  },
});

/**
 * The metadata provider's work on one title (catalog/fetch/): a row while a fetch is under way (`running`,
 * held until `claimed_until` so one instance fetches a title however many ask) or after one that did not
 * store it (`missing` upstream, `invalid` answer, `failed` provider), to be tried again from `retry_at`.
 * A fetch that stores the title deletes its row.
 */
export const CatalogFetch = defineEntity({
  name: 'CatalogFetch',
  primaryKeys: ['type', 'movieDbId'],
  properties: {
    type: p.enum(['movie', 'show']).primary(),

    movieDbId: p.integer().primary(),

    state: p.enum(['running', 'missing', 'invalid', 'failed']),

    /** Fetches tried since the title was last stored (the backoff grows with it). */
    attempts: p.integer().default(1),

    claimedUntil: p.datetime().nullable(),

    retryAt: p.datetime().nullable(),

    lastError: p.text().nullable(),

    updatedAt: p.datetime().defaultRaw(`now()`),
  },
});
