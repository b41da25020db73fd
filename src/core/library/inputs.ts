// Wire inputs of the history and ratings routes, typed as a caller writes them (the REST facade reads
// query-string and path text into numbers first). Path ids are bigints on the wire as integers up to 2^53 - 1.
import { z } from 'zod';
import { IN_FUTURE, notInFuture, wireDateTime } from '../wire/dates.ts';
import { PG_INT_MAX, wireId, wireInt } from '../wire/numbers.ts';
import { KINDS, RATING_SCOPES, SHOW_STATUSES } from './library-items.ts';

// Movie database ids, seasons and episodes are PostgreSQL integers.
export const titleType = z.enum(['movie', 'show']);
const kindFilter = z.enum(KINDS).describe('`movie` and `show` exclude anime; `anime` is anime of either type.');
export const entryId = wireId();
const movieDbId = wireId();
const season = wireInt(0, PG_INT_MAX);
const episode = wireInt(1, PG_INT_MAX);

/** An ISO 8601 date-time with `Z` or an offset; as a Date. */
const dateTime = wireDateTime('must be an ISO 8601 date-time with Z or an offset').transform((s) => new Date(s));
/** A date-time of a watch: not in the future. */
const watchTime = dateTime.refine((d) => notInFuture(d.getTime()), IN_FUTURE);

const PAGE_SIZE_DEFAULT = 50;
const PAGE_SIZE_MAX = 100;
const HISTORY_LIMIT_DEFAULT = 50;
const HISTORY_LIMIT_MAX = 100;

export const historyQuery = z
  .strictObject({
    cursor: z.string().min(1).max(500).optional().describe('The previous page\'s `nextCursor`; keep the other parameters identical.'),
    limit: wireInt(1, HISTORY_LIMIT_MAX).default(HISTORY_LIMIT_DEFAULT),
    type: kindFilter.optional(),
    startAt: dateTime.optional().describe('Entries watched at or after this time.'),
    endAt: dateTime.optional().describe('Entries watched before this time.'),
  })
  .refine((q) => !q.startAt || !q.endAt || q.startAt < q.endAt, { message: 'startAt must be before endAt', path: ['startAt'] });

export const logWatchInput = z.strictObject({
  type: titleType,
  movieDbId,
  season: season.optional().describe('Shows: with `episode` one episode; alone, every aired episode of the season; omitted, every aired episode of the show.'),
  episode: episode.optional(),
  watchedAt: watchTime.optional().describe('When it was watched; default now. Not in the future.'),
});

export const editWatchInput = z.strictObject({ id: entryId, watchedAt: watchTime });

export const rateInput = z.strictObject({
  type: titleType,
  movieDbId,
  season: season.optional().describe('Rate a season (or with `episode`, an episode) of a show.'),
  episode: episode.optional(),
  rating: wireInt(1, 10).describe('1 to 10, whole numbers.'),
});

/** A title in a JSON body. */
export const titleInput = z.strictObject({ type: titleType, movieDbId });
/** A title in a path (`/{type}/{movieDbId}`). */
export const titlePath = z.strictObject({ type: titleType, movieDbId: wireId() });

export const statusInput = titlePath.extend({ status: z.enum(SHOW_STATUSES).describe('Movies: `planned` or `completed` only.') });

const pageParams = {
  page: wireInt(1, 1_000_000).default(1).describe('1-based.'),
  pageSize: wireInt(1, PAGE_SIZE_MAX).default(PAGE_SIZE_DEFAULT),
  type: kindFilter.optional(),
};
export const ratingsQuery = z.strictObject({ ...pageParams, scope: z.enum(RATING_SCOPES).optional() });
export const favouritesQuery = z.strictObject({ ...pageParams, scope: z.enum(['title', 'series']).optional().describe('`title`: movies; `series`: shows.') });
export const statusesQuery = z.strictObject({ ...pageParams, status: z.enum(SHOW_STATUSES).optional() });
