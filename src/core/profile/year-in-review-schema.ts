// Wire shapes of the year in review (GET /me/year-in-review, `YearInReview` in the platform OpenAPI
// document): the query, and a UTC calendar year's figures as of now. A year without a watch has zeros,
// empty lists and nulls (every nullable field says so); ratings count on their own.
import { z } from 'zod';
import { catalogItem } from '../catalog/schemas.ts';
import { historyItem } from '../library/history-items.ts';
import { wireInt } from '../wire/numbers.ts';

/** The years the API can hold a watch in (core/wire/dates.ts: every date on the wire is from 1800 to 2999). */
export const FIRST_YEAR = 1800;
export const LAST_YEAR = 2999;
export const TOP_GENRES = 5;
export const TOP_TITLES = 10;

export const yearInReviewQuery = z.strictObject({
  year: wireInt(FIRST_YEAR, LAST_YEAR).optional().describe(`A UTC calendar year, ${FIRST_YEAR} to ${LAST_YEAR}; default the current one.`),
});

const count = z.number().int().min(0);
const weekday = z.number().int().min(1).max(7).describe('ISO weekday: 1 Monday to 7 Sunday (UTC days).');

export const yearInReview = z
  .strictObject({
    year: z.number().int().min(FIRST_YEAR).max(LAST_YEAR),
    watches: count.describe('Watches in the year, rewatches included.'),
    minutes: count.describe('Runtime of those watches (logged, else the episode\'s, else the title\'s).'),
    movieWatches: count.describe('Watches of movies.'),
    episodeWatches: count.describe('Watches of episodes.'),
    activeDays: count.describe('UTC days with at least one watch.'),
    ratings: count.describe('Ratings given (or last changed) in the year, every scope.'),
    topGenres: z
      .array(z.strictObject({ name: z.string(), count }))
      .describe(`The ${TOP_GENRES} genres watched most (each watch counts once per genre of its title), most watched first, then by name.`),
    busiestMonth: z
      .strictObject({ month: z.string().describe('YYYY-MM (UTC).'), watches: count, minutes: count })
      .nullable()
      .describe('The month with the most watches (ties: more minutes, then the earlier month); null without a watch.'),
    busiestDay: z
      .strictObject({ date: z.string().describe('YYYY-MM-DD (UTC).'), weekday, watches: count, minutes: count })
      .nullable()
      .describe('The UTC date with the most watches (ties: more minutes, then the earlier date); null without a watch.'),
    busiestWeekday: z
      .strictObject({ weekday, watches: count, minutes: count })
      .nullable()
      .describe('The weekday with the most watches over the year (ties: more minutes, then the earlier weekday); null without a watch.'),
    longestStreak: z
      .strictObject({ days: z.number().int().min(1), firstDay: z.string().describe('YYYY-MM-DD.'), lastDay: z.string().describe('YYYY-MM-DD.') })
      .nullable()
      .describe('The longest run of consecutive UTC days with a watch within the year (a run across New Year counts its days in this year only; ties: the earlier run); null without a watch.'),
    topTitles: z
      .array(z.strictObject({ title: catalogItem, watches: count, minutes: count }))
      .describe(`The ${TOP_TITLES} titles watched most often in the year (a show counts each episode watch), then by minutes.`),
    firstWatch: historyItem.nullable().describe('The year\'s first watch (the last of GET /me/history\'s order); null without a watch.'),
    lastWatch: historyItem.nullable().describe('The year\'s latest watch up to now; null without a watch.'),
  })
  .meta({ id: 'YearInReview' });
export type YearInReview = z.infer<typeof yearInReview>;
