// Wire shapes of the public profile and the community overview (public API). Their shapes are
// ours (only the paths are given); docs/decisions.md says what each field means.
import { z } from 'zod';
import { catalogItem } from '../catalog/schemas.ts';
import { listSummary } from '../lists/schemas.ts';
import { recentWatch } from '../profile/schemas.ts';
import { DAILY_STATS_DAYS } from './daily-stats.ts';

const dateTime = z.string().describe('ISO 8601 date-time (UTC)');
const count = z.number().int().min(0);

/** A list summary with its like count: the public profile's lists and the community's top lists. */
export const publicList = listSummary.extend({ likeCount: count }).meta({ id: 'PublicListSummary' });

const publicWatch = recentWatch
  .extend({ watchedAt: dateTime })
  .describe('One watch: a movie, or an episode (season and episode >= 1).')
  .meta({ id: 'PublicWatch' });

export const PROFILE_FAVOURITES = 10;
export const PROFILE_RECENT_WATCHES = 10;
export const PROFILE_LISTS = 20;

export const publicProfile = z
  .strictObject({
    username: z.string(),
    displayName: z.string(),
    avatarUrl: z.string().nullable().describe('null when the user has none.'),
    bio: z.string().describe('"" when the user has none.'),
    joinedAt: dateTime,
    stats: z
      .strictObject({
        moviesWatched: count.describe('Distinct movies watched (anime films included).'),
        showsWatched: count.describe('Distinct shows with at least one episode watched.'),
        episodesWatched: count.describe('Distinct episodes watched.'),
        watches: count.describe('Every logged watch, rewatches included.'),
        hoursWatched: count.describe('Runtime of every watch (logged, else the episode\'s, else the title\'s) in whole hours, rounded down.'),
        ratings: count.describe('Ratings given (titles, seasons and episodes).'),
        favourites: count.describe('Favourite titles.'),
        publicLists: count.describe('Public lists the user owns.'),
      })
      .meta({ id: 'PublicProfileStats' }),
    favourites: z.array(catalogItem).describe(`The ${PROFILE_FAVOURITES} most recently favourited titles.`),
    recentWatches: z.array(publicWatch).describe(`The ${PROFILE_RECENT_WATCHES} most recent watches, newest first.`),
    lists: z.array(publicList).describe(`Up to ${PROFILE_LISTS} public lists the user owns, most liked first, then newest.`),
  })
  .meta({ id: 'PublicProfile' });
export type PublicProfile = z.infer<typeof publicProfile>;

export const OVERVIEW_TITLES = 10;
export const OVERVIEW_LISTS = 10;

export const communityOverview = z
  .strictObject({
    generatedAt: dateTime.describe('When these figures were computed; answers are kept in memory for up to a minute (CATALOG_CACHE_SECONDS).'),
    activeUsers: z
      .strictObject({
        last7Days: count.describe('Users with a watch in the last 7 days (by the time watched).'),
        last30Days: count.describe('Users with a watch in the last 30 days.'),
      })
      .describe('Counted over every user, private profiles included: no figure names anyone.'),
    watchesThisWeek: count.describe('Watches in the last 7 days (a rolling week, by the time watched).'),
    mostWatchedThisWeek: z
      .array(
        z.strictObject({
          title: catalogItem,
          watchers: count.describe('Users who watched it (or an episode of it) in the last 7 days.'),
          watches: count.describe('Watches of it (episodes of a show count one each) in the last 7 days.'),
        }),
      )
      .describe(`Up to ${OVERVIEW_TITLES} titles with the most watchers in the last 7 days, then the most watches.`),
    topLists: z.array(publicList).describe(`Up to ${OVERVIEW_LISTS} public lists with the most likes (at least one), of users whose profile is public.`),
    daily: z
      .array(
        z.strictObject({
          date: z.string().describe('The UTC calendar day, YYYY-MM-DD.'),
          activeUsers: count.describe('Users with a watch that day.'),
          watches: count.describe('Watches that day.'),
          newUsers: count.describe('Users who joined that day.'),
          ratings: count.describe('Ratings given that day.'),
        }),
      )
      .describe(`The last ${DAILY_STATS_DAYS} days, oldest first, from the statistics roll-up (the stats-rollup job, every 10 minutes; today's row is as of its last run, and a day not rolled up yet is absent).`),
  })
  .meta({ id: 'CommunityOverview' });
export type CommunityOverview = z.infer<typeof communityOverview>;
