// Wire shapes of the profile home (deprecated) and the community statistics (`ProfileHome`,
// `CommunityStats` in the platform OpenAPI document). As elsewhere, fields the contract does not mark nullable are never null: a
// movie's entry in recentWatchHistory has season 0, episode 0 and episodeTitle "".
import { z } from 'zod';
import { listSummary } from '../lists/schemas.ts';

const count = z.number().int().min(0);

/** A list summary without `description` (the shape profileHomeLists returns). */
const profileHomeList = listSummary.omit({ description: true }).meta({ id: 'ProfileHomeList' });

export const recentWatch = z
  .object({
    id: z.string().describe('The watch-history entry id, as a string.'),
    movieDbId: z.number().int().min(1),
    type: z.enum(['movie', 'show']),
    name: z.string().describe('The title\'s name.'),
    posterUrl: z.string().describe('Absolute poster URL, or "" when the title has none.'),
    backdropUrl: z.string().describe('Absolute backdrop URL, or "" when the title has none.'),
    season: count.describe('0 for a movie.'),
    episode: count.describe('0 for a movie.'),
    episodeTitle: z.string().describe('"" for a movie.'),
    mediaSource: z.literal('movie_db'),
  })
  .meta({ id: 'RecentWatch' });
export type RecentWatch = z.infer<typeof recentWatch>;

export const profileHome = z
  .object({
    lists: z.array(profileHomeList).describe('The user\'s lists (at most 20), as GET /me/lists shows them without description.'),
    recentWatchHistory: z.array(recentWatch).describe('The 20 most recent watches, newest first.'),
  })
  .meta({ id: 'ProfileHome' });
export type ProfileHome = z.infer<typeof profileHome>;

const weeklyChallenge = z
  .object({
    id: z.string(),
    title: z.string(),
    description: z.string(),
    target: z.number().int().min(1),
    progress: count.describe('Counted this ISO week (UTC), capped at target.'),
    xpReward: count,
    completed: z.boolean(),
  })
  .meta({ id: 'WeeklyChallenge' });

export const communityStats = z
  .object({
    streak: count.describe('Consecutive UTC days with at least one watch, ending today or yesterday; 0 otherwise.'),
    monthMovies: count.describe('Movie watches this calendar month (UTC), rewatches included.'),
    monthEpisodes: count.describe('Episode watches this calendar month (UTC), rewatches included.'),
    monthHours: count.describe('Runtime of this month\'s watches in whole hours, rounded down.'),
    monthReviews: count.describe('Ratings given (or last changed) this calendar month.'),
    monthGenres: z
      .array(z.object({ name: z.string(), count, share: z.number().min(0).max(1) }))
      .describe('Genres of this month\'s watches (each watch counts once per genre of its title), most watched first; shares sum to 1.'),
    weeklyChallenges: z.array(weeklyChallenge),
    weeklyCompletedChallenges: count,
    totalChallengesCompleted: count.describe('Challenges completed over every ISO week of the user\'s history, this one included.'),
    xpScore: count.describe('10 per movie watch + 3 per episode watch + 5 per rating + the XP of every completed challenge.'),
  })
  .meta({ id: 'CommunityStats' });
export type CommunityStats = z.infer<typeof communityStats>;

const monthFigures = z.object({ month: z.string().describe('YYYY-MM (UTC).'), watches: count, minutes: count });
const weekdayFigures = z.object({ weekday: z.number().int().min(1).max(7).describe('ISO weekday: 1 Monday to 7 Sunday (UTC days).'), watches: count, minutes: count });

export const userStats = z
  .object({
    watches: count.describe('Every logged watch, rewatches included.'),
    minutes: count.describe('Runtime of every watch (logged, else the episode\'s, else the title\'s).'),
    movies: count.describe('Distinct movies watched.'),
    shows: count.describe('Distinct shows with at least one episode watched.'),
    episodes: count.describe('Distinct episodes watched.'),
    animeTitles: count.describe('Distinct anime titles (movies and shows) watched.'),
    showsCompleted: count.describe('Shows with every aired regular episode watched, as of today (UTC).'),
    longestStreak: count.describe('The longest run of consecutive UTC days with a watch, ever.'),
    ratings: count.nullable().describe('Ratings held (every scope); null unless the token has ratings:read.'),
    months: z.array(monthFigures).describe('The last 12 UTC months, this one included, oldest first (watches up to now).'),
    weekdays: z.array(weekdayFigures).describe('The same 12 months\' watches by UTC weekday, Monday first.'),
    genres: z.array(z.object({ name: z.string(), count })).describe('Genres of the same 12 months\' watches (each watch counts once per genre of its title), most watched first.'),
  })
  .meta({ id: 'UserStats' });
export type UserStats = z.infer<typeof userStats>;
