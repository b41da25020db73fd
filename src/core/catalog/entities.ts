// ORM mappings of the catalog tables (migrations/ owns the DDL; generated columns are not mapped).
import { defineEntity, p } from '@mikro-orm/core';

export const TitleSchema = defineEntity({
  name: 'Title',
  tableName: 'title',
  properties: {
    id: p.bigint('number').primary().autoincrement(),
    type: p.string(),
    movieDbId: p.integer(),
    category: p.string(),
    isAnime: p.boolean(),
    name: p.string(),
    originalName: p.string(),
    tagline: p.string(),
    year: p.integer(),
    releaseDate: p.string().columnType('date').nullable(),
    overview: p.text(),
    posterPath: p.string(),
    backdropPath: p.string(),
    popularity: p.double(),
    communityRating: p.double(),
    voteCount: p.integer(),
    genres: p.array(),
    originalLanguage: p.string(),
    status: p.string(),
    ageRating: p.string(),
    runtimeMinutes: p.integer().nullable(),
    episodeRunTimeMinutes: p.integer().nullable(),
    seasonsCount: p.integer().nullable(),
    episodesCount: p.integer().nullable(),
    posterColor: p.string(),
    posterColorIsDark: p.boolean(),
    tvDbId: p.integer().nullable(),
    filmDbId: p.string().nullable(),
    animeDbId: p.integer().nullable(),
    externalIds: p.json<Record<string, string | number>>(),
    source: p.string(),
    createdAt: p.datetime(),
    updatedAt: p.datetime(),
  },
});

export const SeasonSchema = defineEntity({
  name: 'Season',
  tableName: 'season',
  properties: {
    id: p.bigint('number').primary().autoincrement(),
    titleId: p.bigint('number'),
    seasonNumber: p.integer(),
    name: p.string(),
    overview: p.text(),
    airDate: p.string().columnType('date').nullable(),
    episodeCount: p.integer(),
    posterPath: p.string(),
  },
});

export const EpisodeSchema = defineEntity({
  name: 'Episode',
  tableName: 'episode',
  properties: {
    id: p.bigint('number').primary().autoincrement(),
    titleId: p.bigint('number'),
    seasonNumber: p.integer(),
    episodeNumber: p.integer(),
    absoluteNumber: p.integer().nullable(),
    name: p.string(),
    overview: p.text(),
    airDate: p.string().columnType('date').nullable(),
    runtimeMinutes: p.integer().nullable(),
    stillPath: p.string(),
  },
});

export const catalogEntities = [TitleSchema, SeasonSchema, EpisodeSchema];
