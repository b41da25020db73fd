// Wire shapes of lists (`List`, `ListSummary`, `ListDetail`, `ListPreviewPoster` in the platform OpenAPI document) and the inputs of the
// list endpoints. Absent sync and external values are null, never omitted: a plain list has
// externalSource, externalUrl, lastSyncedAt, dynamicListLastFullSyncedAt, lastSyncError,
// dynamicListSyncState and dynamicListFilters null (as the platform OpenAPI document describes them: `List`'s
// lastSyncedAt is null for other lists, and `ListSummary`'s externalSource null for lists not externally managed).
import { z } from 'zod';
import { wireId, wireInt } from '../wire/numbers.ts';
import { DISCOVER_SORTS, titleType } from '../catalog/schemas.ts';

const dateTime = z.string().describe('ISO 8601 date-time (UTC)');
export const listId = wireId();

/** Page sizes of list reads (lists: default 50, max 100); list items page the same way. */
export const PAGE_DEFAULT = 50;
export const PAGE_MAX = 100;

const previewPoster = z
  .object({ posterPath: z.string(), movieDbId: z.number().int().min(1), type: titleType })
  .meta({ id: 'ListPreviewPoster' });

const itemBreakdown = z.object({ movies: z.number().int().min(0), shows: z.number().int().min(0), anime: z.number().int().min(0) });

/** The fields every list shape shares (List, list summary). */
const listCommon = {
  id: z.number().int().min(1),
  name: z.string(),
  description: z.string().describe('"" when the list has none.'),
  isPublic: z.boolean(),
  isWatchlist: z.boolean(),
  isDynamicList: z.boolean(),
  isCollaborative: z.boolean().describe('True while at least one invited user has accepted.'),
  ownerUsername: z.string(),
  itemCount: z.number().int().min(0),
  previewPosters: z.array(previewPoster).describe('Posters of the first items (in list order) that have one, at most 4.'),
};

export const listShape = z
  .object({
    ...listCommon,
    lastSyncedAt: dateTime.nullable().describe('Last completed refresh of a dynamic or external list; null for other lists and before the first refresh.'),
    isFeatured: z.boolean(),
    itemBreakdown: itemBreakdown.describe('Items per category (anime counted under anime, not movies or shows); sums to itemCount.'),
    createdAt: dateTime,
  })
  .strict()
  .meta({ id: 'List' });

export const listSummary = z
  .object({
    ...listCommon,
    externalSource: z.string().nullable().describe('Source of an externally managed list (e.g. `letterboxd`, `trakt`); null for other lists.'),
  })
  .strict()
  .meta({ id: 'ListSummary' });

export const listItem = z
  .object({
    id: z.number().int().min(1).describe('The list item id (stable while the title stays in the list).'),
    movieDbId: z.number().int().min(1),
    type: titleType,
    isAnime: z.boolean(),
    title: z.string(),
    posterPath: z.string().describe('"" when the title has no poster.'),
    addedAt: dateTime,
    runtime: z.number().describe('Minutes (movie runtime, or a show\'s episode runtime); 0 when unknown.'),
    popularity: z.number(),
    releaseDate: dateTime.nullable().describe('First release at midnight UTC; null when unknown.'),
    watched: z.boolean().describe('Whether the viewer (the token\'s user) has any watch history of the title.'),
  })
  .strict()
  .meta({ id: 'ListItem' });

const SYNC_STATES = ['pending', 'syncing', 'synced', 'failed'] as const;

export const dynamicFilters = z
  .strictObject({
    genres: z.array(z.string().trim().min(1).max(60)).min(1).max(10).optional().describe('Any of these genres (case-insensitive).'),
    yearFrom: z.number().int().min(1800).max(2200).optional(),
    yearTo: z.number().int().min(1800).max(2200).optional(),
    type: titleType.optional(),
    anime: z.boolean().optional().describe('true: anime only; false: no anime; absent: both.'),
    minRating: z.number().min(0).max(10).optional().describe('Minimum community rating, 0-10.'),
    language: z.string().regex(/^[a-z]{2}$/, 'must be a two-letter ISO 639-1 code').optional(),
    sort: z.enum(DISCOVER_SORTS).default('popularity'),
    size: z.number().int().min(1).max(500).default(100).describe('How many titles the list holds (1-500, default 100).'),
  })
  .refine((v) => v.yearFrom === undefined || v.yearTo === undefined || v.yearFrom <= v.yearTo, { message: 'yearFrom must not be after yearTo', path: ['yearFrom'] })
  .meta({ id: 'DynamicListFilters' });
export type DynamicFilters = z.infer<typeof dynamicFilters>;

const collaborator = z.object({ userId: z.string(), username: z.string(), avatarUrl: z.string().nullable().describe('null when the user has none.') }).strict();

export const listDetail = z
  .object({
    id: z.number().int().min(1),
    name: z.string(),
    description: z.string(),
    isPublic: z.boolean(),
    isWatchlist: z.boolean(),
    isDynamicList: z.boolean(),
    isOwner: z.boolean(),
    isCollaborator: z.boolean().describe('The viewer has accepted an invitation to this list.'),
    isCollaborative: z.boolean(),
    isFeatured: z.boolean(),
    isLiked: z.boolean().describe('The viewer likes the list.'),
    externalSource: z.string().nullable().describe('null unless the list is managed by an external source.'),
    externalUrl: z.string().nullable().describe('The file the external list is refreshed from (file URL); null for other lists.'),
    itemCount: z.number().int().min(0),
    likeCount: z.number().int().min(0),
    commentCount: z.number().int().min(0).describe('Always 0: the service has no list comments.'),
    createdAt: dateTime,
    lastSyncedAt: dateTime.nullable().describe('Last completed refresh (dynamic and external lists); null otherwise.'),
    dynamicListLastFullSyncedAt: dateTime.nullable().describe('Last time a dynamic list\'s items were recomputed in full; null for other lists and before the first.'),
    ownerId: z.string(),
    ownerUsername: z.string(),
    collaborators: z.array(collaborator).describe('Users who accepted an invitation (pending invitations are not listed).'),
    items: z.array(listItem).describe('One page of items in list order (`itemsLimit`, default 50); page on with `itemsNextCursor` or GET /lists/{id}/items.'),
    itemsNextCursor: z.string().optional().describe('Present when more items follow: pass as `itemsCursor` (or `cursor` to GET /lists/{id}/items with the same limit).'),
    dynamicListFilters: z.record(z.string(), z.unknown()).nullable().describe('The filters of a dynamic list, with defaults filled in; null for other lists.'),
    lastSyncError: z.string().nullable().describe('Why the last refresh failed; null when it succeeded or the list is not refreshed.'),
    dynamicListSyncState: z
      .enum(SYNC_STATES)
      .nullable()
      .describe(
        'Dynamic and external lists: `pending` (created, filters changed, or due) -> `syncing` (the job is recomputing) -> `synced` | `failed` (lastSyncError says why; the items are left as they were). The job picks up pending lists and refreshes synced and failed ones periodically. null for other lists.',
      ),
  })
  .strict()
  .meta({ id: 'ListDetail' });

export const itemsPage = z.object({ items: z.array(listItem), nextCursor: z.string().optional().describe('Absent on the last page.') }).strict();

export const myListsPage = z
  .object({ items: z.array(listSummary), nextCursor: z.string().optional().describe('Absent on the last page.') })
  .strict()
  .meta({ id: 'ListSummaryPage' });

export const pageQuery = {
  cursor: z.string().min(1).max(500).optional(),
  limit: wireInt(1, PAGE_MAX).default(PAGE_DEFAULT),
};

export const createListInput = z.strictObject({
  name: z.string().trim().min(1).max(100),
  description: z.string().max(2000).default(''),
  isPublic: z.boolean().default(false),
  dynamicListFilters: dynamicFilters.optional().describe('Makes a dynamic list: its items are computed from these filters over the catalog.'),
});
export type CreateListInput = z.infer<typeof createListInput>;

export const updateListInput = z
  .strictObject({
    id: listId,
    name: z.string().trim().min(1).max(100).optional(),
    description: z.string().max(2000).optional(),
    isPublic: z.boolean().optional(),
    dynamicListFilters: dynamicFilters.optional().describe('Dynamic lists only (409 on others); the list is recomputed.'),
  })
  .refine((v) => Object.keys(v).length > 1, { message: 'name, description, isPublic or dynamicListFilters is required' });
export type UpdateListInput = z.infer<typeof updateListInput>;

const titleRefInput = z.strictObject({ type: titleType, movieDbId: wireId() });

export const addItemsInput = z.strictObject({ id: listId, items: z.array(titleRefInput).min(1).max(100) });

export const addItemsOutput = z
  .object({
    results: z.array(
      z
        .object({
          type: titleType,
          movieDbId: z.number().int(),
          status: z.enum(['added', 'existing', 'not_found']).describe('`existing`: the title was already in the list (not an error, no duplicate); `not_found`: no such title in the catalog.'),
          item: listItem.nullable(),
        })
        .strict(),
    ),
  })
  .strict();

