// Wire shapes of the sync module: the items of each bulk write (validated one by one, so one bad item is
// `invalid` rather than failing the batch), the bulk result, the change feed and the snapshot.
import { z } from 'zod';
import { IN_FUTURE, notInFuture, wireDateTime } from '../wire/dates.ts';
import { ID_MAX } from '../wire/numbers.ts';

// Every date a bulk item carries says when something happened, so none may be in the future: the same
// rule (and clock-skew allowance) as POST /watch-history. Such an item is `invalid`, the rest applied.
const pastDateTime = wireDateTime().refine((s) => notInFuture(Date.parse(s)), IN_FUTURE);

// How an item names a title (the bulk sync items of the platform OpenAPI document). null is taken as absent: importers often send it.
const titleRef = {
  client_item_id: z.string().max(200).nullish(),
  movie_db_id: z.number().int().min(1).max(ID_MAX).nullish(),
  tv_db_id: z.number().int().min(1).max(ID_MAX).nullish(),
  film_db_id: z.string().min(1).max(32).nullish(),
  anime_db_id: z.number().int().min(1).max(ID_MAX).nullish(),
  title: z.string().min(1).max(500).nullish(),
  year: z.number().int().min(1800).max(3000).nullish(),
};

const namesATitle = (i: { movie_db_id?: number | null; tv_db_id?: number | null; film_db_id?: string | null; anime_db_id?: number | null; title?: string | null }) =>
  i.movie_db_id != null || i.tv_db_id != null || i.film_db_id != null || i.anime_db_id != null || i.title != null;
const NO_TITLE = { message: 'name the title: movie_db_id, tv_db_id, film_db_id, anime_db_id or title (with year)' };

const season = z.number().int().min(0).max(1000).nullish();
const episode = z.number().int().min(1).max(100_000).nullish();
const type = z.enum(['movie', 'show']).nullish();

export const historyItem = z
  .object({
    ...titleRef,
    watched_at: pastDateTime,
    season,
    episode,
    episode_title: z.string().max(1000).nullish(),
    poster_path: z.string().max(1000).nullish(),
    still_path: z.string().max(1000).nullish(),
    runtime_minutes: z.number().int().min(0).max(10_000).nullish(),
  })
  .strict()
  .refine(namesATitle, NO_TITLE)
  .refine((i) => i.season == null || i.episode != null, { message: 'season needs episode: a watch is of a movie or of one episode', path: ['episode'] });

export const ratingItem = z
  .object({
    ...titleRef,
    type,
    season,
    episode,
    rating: z.number().int().min(1).max(10).nullish(),
    rated_at: pastDateTime.nullish(),
    remove: z.boolean().nullish(),
  })
  .strict()
  .refine(namesATitle, NO_TITLE)
  .refine((i) => (i.remove === true) !== (i.rating != null), { message: 'send rating (1 to 10), or remove: true to remove the rating', path: ['rating'] })
  .refine((i) => i.type !== 'movie' || (i.season == null && i.episode == null), { message: 'a movie has no seasons or episodes', path: ['type'] });

export const watchlistItem = z
  .object({
    ...titleRef,
    type,
    remove: z.boolean().nullish(),
  })
  .strict()
  .refine(namesATitle, NO_TITLE);

export type HistoryItem = z.infer<typeof historyItem>;
export type RatingItem = z.infer<typeof ratingItem>;
export type WatchlistItem = z.infer<typeof watchlistItem>;

const ID_FIELDS =
  '`client_item_id` (string, echoed back); the title by `movie_db_id`, `tv_db_id`, `film_db_id`, `anime_db_id` or `title` + `year` (tried in that order; null counts as absent)';

export const ITEM_DOCS = {
  history:
    `History items: ${ID_FIELDS}; \`watched_at\` (date-time, required); \`season\` + \`episode\` for an episode of a show ` +
    '(`episode` alone is an absolute episode number, anime numbering); `runtime_minutes` (default: the catalog\'s); ' +
    '`episode_title`, `poster_path`, `still_path` are accepted and ignored (the catalog is authoritative). ' +
    'An item with season/episode names a show, otherwise a movie. A watch of the same movie or episode within an hour of one ' +
    'already logged is `skipped` with reason `duplicate` and the existing entry\'s `id`. Unknown fields make the item `invalid`.',
  ratings:
    `Rating items: ${ID_FIELDS}; \`type\` (\`movie\` or \`show\`; default \`show\` when season/episode is given, else \`movie\`); ` +
    '`rating` (integer 1 to 10) and optional `rated_at` (date-time, default now, not in the future), or `remove: true` to remove the rating; ' +
    'no season = the whole title, `season` = that season, `season` + `episode` = that episode (`episode` alone: absolute number). ' +
    'Statuses: `inserted`, `updated`, `skipped` (reason `unchanged`), `removed`, `skipped` (reason `absent`: nothing to remove).',
  watchlist:
    `Watchlist items: ${ID_FIELDS}; \`type\` (\`movie\` or \`show\`, default \`movie\`); \`remove: true\` removes the title. ` +
    'Statuses: `inserted`, `skipped` (reason `duplicate`: already on the watchlist), `removed`, `skipped` (reason `absent`).',
} as const;

const bulkBody = <T extends z.ZodType>(items: z.ZodArray<T>) =>
  z.object({ items: items.min(1).max(100).describe('1 to 100 items; each is validated on its own (a malformed item is `invalid` with `error`, the rest are applied)') }).strict();

/**
 * The body of a bulk write of `_item`s (the item schema, for its type only). A caller's type for each
 * item is the item schema's input (what a TypeScript client may write), but the body checks only the
 * count: each item is validated on its own (parseItems in src/rpc/routers/sync.ts), so a malformed one is
 * `invalid` in the answer rather than a 400 for the whole batch. (The platform document draws the item
 * schemas instead: `bulkInputDoc`.)
 */
export const bulkInput = <T extends z.ZodType>(_item: T) => bulkBody(z.array(z.custom<z.input<T>>().describe('An item, validated on its own')));

/** The same body as the platform OpenAPI document draws it: each item by its schema. */
export const bulkInputDoc = <T extends z.ZodType>(item: T) => bulkBody(z.array(item));

const itemResultSchema = z.object({
  client_item_id: z.string().nullable(),
  index: z.number().int().describe('Position of the item in `items`'),
  status: z.enum(['inserted', 'updated', 'removed', 'skipped', 'invalid', 'deferred']),
  id: z.number().int().nullable().describe('The record written, found or removed (history entry, rating, watchlist item)'),
  reason: z
    .enum(['duplicate', 'unchanged', 'absent', 'unmatched'])
    .nullable()
    .describe('`duplicate`, `unchanged`, `absent` (skipped); `unmatched` (deferred: the title, season or episode is not in the catalog yet; not kept: resend it later)'),
  resolved_movie_db_id: z.number().int().nullable(),
  error: z.string().nullable().describe('Why the item is invalid'),
});

const counter = z.number().int().min(0);
export const bulkResultSchema = z.object({
  results: z.array(itemResultSchema),
  inserted: counter,
  updated: counter,
  removed: counter,
  skipped: counter,
  invalid: counter,
  deferred: counter,
  idempotency_replayed: z.boolean().describe('true when this is the stored result of an earlier request with the same key and body'),
});

const changeSchema = z.object({
  resource: z.string(),
  resourceId: z.string().describe('Stable id of the item within its resource: apply changes idempotently keyed on (resource, resourceId)'),
  op: z.enum(['upsert', 'delete']),
  changedAt: z.string(),
  data: z.record(z.string(), z.unknown()).nullable().describe('The full current record as of this change (null for a delete)'),
});

export const changesOutput = z.object({
  changes: z.array(changeSchema),
  nextCursor: z.string().describe('Always present: pass it as `cursor` on the next call (with the same `resources`), now or later'),
  hasMore: z.boolean().describe('true when more changes are ready now; false: poll again later with nextCursor'),
});

export const snapshotOutput = z.object({
  items: z.array(z.record(z.string(), z.unknown())),
  nextCursor: z.string().nullable().describe('null on the last page'),
  changesCursor: z.string().describe('Starts GET /me/sync/changes (with `resources` = this resource) right after this snapshot'),
});
