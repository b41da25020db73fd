// The figures kept about each user's data, so a read costs its page and not the user's history: totals,
// per title, per UTC day, per month and genre, streak runs, and the counts of the ratings, favourites and
// statuses lists. Each is kept current in the transaction of the write that changes it (src/core/figures/)
// and can be rebuilt from the rows (`admin stats:rebuild`).
import { defineEntity, p } from '@mikro-orm/core';
import { AppUser } from './accounts.ts';
import { Title } from './catalog.ts';

/** The user's totals over their whole history and ratings. */
export const UserFigures = defineEntity({
  name: 'UserFigures',
  properties: {
    user: () => p.oneToOne(AppUser).owner().primary().updateRule('no action').deleteRule('cascade'),
    /** History entries, rewatches included. */
    watches: p.integer().default(0),
    /** Minutes of every entry: as logged, else the episode's, else the title's. */
    minutes: p.integer().default(0),
    /** Different movies, shows, episodes and anime titles with an entry. */
    movies: p.integer().default(0),
    shows: p.integer().default(0),
    episodes: p.integer().default(0),
    animeTitles: p.integer().default(0),
    /**
     * Entries and their minutes split by the title's type: of movies, and of episodes (a show's entries).
     * Each pair sums to `watches` and `minutes`; kept for the reads that split them (Trakt's statistics).
     */
    movieWatches: p.integer().default(0),
    movieMinutes: p.integer().default(0),
    episodeWatches: p.integer().default(0),
    episodeMinutes: p.integer().default(0),
    /** Ratings held (every scope). */
    ratings: p.integer().default(0),
    /**
     * Weekly challenges completed over every ISO week kept and the XP score of every week kept; and the
     * same counting only entries (watch_) or only ratings (rating_), for a reader who may see one part.
     */
    challenges: p.integer().default(0),
    xp: p.integer().default(0),
    watchChallenges: p.integer().default(0),
    watchXp: p.integer().default(0),
    ratingChallenges: p.integer().default(0),
    ratingXp: p.integer().default(0),
  },
});

/**
 * Per title the user has an entry of: entries, minutes, different episodes, when the show counts as
 * completed, and where the user is in it (the latest watch, the furthest regular episode watched) for
 * Up next.
 */
export const UserTitleFigures = defineEntity({
  name: 'UserTitleFigures',
  primaryKeys: ['user', 'title'],
  indexes: [
    { name: 'user_title_figures_completed', properties: ['user', 'completedFrom'], where: 'completed_from is not null' },
    // The catalog refresh: is a title watched by anyone (one row per user and title, not per watch).
    { name: 'user_title_figures_title', properties: ['title'] },
    // Up next: the shows with a regular episode watched, latest watch first.
    {
      name: 'user_title_figures_up_next',
      properties: ['user', 'lastWatchedAt', 'title'],
      columns: [{ name: 'user' }, { name: 'lastWatchedAt', sort: 'DESC' }, { name: 'title', sort: 'DESC' }],
      where: 'last_season is not null',
    },
  ],
  properties: {
    user: () => p.manyToOne(AppUser).primary().updateRule('no action').deleteRule('cascade'),
    title: () => p.manyToOne(Title).primary().updateRule('no action').deleteRule('cascade'),
    watches: p.integer(),
    minutes: p.integer(),
    episodes: p.integer(),
    /** Different regular episodes (season 1 and up) with an entry. */
    regularEpisodes: p.integer(),
    /** The latest watched_at of the title's entries. */
    lastWatchedAt: p.datetime(),
    /**
     * The furthest regular episode with an entry, by season and episode number (not by when it was
     * watched); null for movies and shows without a watched regular episode.
     */
    lastSeason: p.integer().nullable(),
    lastEpisode: p.integer().nullable(),
    /**
     * A show is completed on day D when completed_from <= D < completed_until (no end when null):
     * from the first air date of a watched regular episode, until the first air date of an unwatched one
     * (an episode without a date counts as aired: '-infinity'). Null for movies and shows without a
     * watched regular episode.
     */
    completedFrom: p.date().nullable(),
    completedUntil: p.date().nullable(),
  },
});

/** Per UTC day with an entry or a rating: entries (movie and episode ones apart), minutes, ratings given. */
export const UserDayFigures = defineEntity({
  name: 'UserDayFigures',
  primaryKeys: ['user', 'day'],
  properties: {
    user: () => p.manyToOne(AppUser).primary().updateRule('no action').deleteRule('cascade'),
    day: p.date().primary(),
    watches: p.integer(),
    movies: p.integer(),
    episodes: p.integer(),
    minutes: p.integer(),
    ratings: p.integer(),
  },
});

/** Per UTC month (its first day) and genre: entries of titles of that genre. */
export const UserMonthGenre = defineEntity({
  name: 'UserMonthGenre',
  primaryKeys: ['user', 'month', 'genre'],
  properties: {
    user: () => p.manyToOne(AppUser).primary().updateRule('no action').deleteRule('cascade'),
    month: p.date().primary(),
    genre: p.text().primary(),
    watches: p.integer(),
  },
});

/** Runs of consecutive UTC days with an entry: first and last day, and their number of days. */
export const UserStreakRun = defineEntity({
  name: 'UserStreakRun',
  primaryKeys: ['user', 'firstDay'],
  indexes: [
    {
      name: 'user_streak_run_longest',
      properties: ['user', 'days'],
      columns: [{ name: 'user' }, { name: 'days', sort: 'DESC' }],
    },
  ],
  properties: {
    user: () => p.manyToOne(AppUser).primary().updateRule('no action').deleteRule('cascade'),
    firstDay: p.date().primary(),
    lastDay: p.date(),
    days: p.integer(),
  },
});

/**
 * Per UTC year and title: the user's entries of the title in that year and their minutes (the year in
 * review's top titles, read through the index in their order).
 */
export const UserYearTitle = defineEntity({
  name: 'UserYearTitle',
  primaryKeys: ['user', 'year', 'title'],
  indexes: [
    {
      name: 'user_year_title_top',
      properties: ['user', 'year', 'watches', 'minutes', 'title'],
      columns: [{ name: 'user' }, { name: 'year' }, { name: 'watches', sort: 'DESC' }, { name: 'minutes', sort: 'DESC' }, { name: 'title' }],
    },
  ],
  properties: {
    user: () => p.manyToOne(AppUser).primary().updateRule('no action').deleteRule('cascade'),
    year: p.integer().primary(),
    title: () => p.manyToOne(Title).primary().updateRule('no action').deleteRule('cascade'),
    watches: p.integer(),
    minutes: p.integer(),
  },
});

/**
 * The counts of the ratings, favourites and statuses lists by the filters their pages take: the title's
 * category, the scope, and (statuses only; '' otherwise) the show status.
 */
export const UserLibraryCount = defineEntity({
  name: 'UserLibraryCount',
  primaryKeys: ['user', 'list', 'category', 'scope', 'status'],
  properties: {
    user: () => p.manyToOne(AppUser).primary().updateRule('no action').deleteRule('cascade'),
    list: p.enum(['ratings', 'favourites', 'statuses']).primary(),
    category: p.enum(['movie', 'show', 'anime']).primary(),
    scope: p.enum(['title', 'series', 'season', 'episode']).primary(),
    status: p.text().primary(),
    n: p.integer(),
  },
});
