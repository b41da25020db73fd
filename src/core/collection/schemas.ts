// Wire shapes of the collection (`CollectionItem`, GET /me/collection in the platform OpenAPI document) and the inputs of its reads
// and writes. The contract marks no field of a collection item nullable, so a whole-title item has
// `season` 0 and an item without notes has `notes` "" (the catalog's rule, docs/decisions.md: no nulls the contract does not show).
import { z } from 'zod';
import { PG_INT_MAX, wireId, wireInt } from '../wire/numbers.ts';

/** The formats a copy can be in, in the order the title detail lists them. */
export const COLLECTION_FORMATS = ['uhd_bluray', 'bluray', 'hd_dvd', 'dvd', 'digital', 'vhs', 'laserdisc'] as const;
export type CollectionFormat = (typeof COLLECTION_FORMATS)[number];

const NOTES_MAX = 500;
// Ids are stored as PostgreSQL integers (movie database ids, seasons) and bigints (item ids).
const PAGE_DEFAULT = 100;
const PAGE_MAX = 200;

const collectionFormat = z.enum(COLLECTION_FORMATS);
const collectionTypeFilter = z.enum(['movie', 'show', 'anime']);

// Counted in Unicode code points, as the database's check counts them.
const notes = z
  .string()
  .refine((s) => [...s].length <= NOTES_MAX, `must be at most ${NOTES_MAX} characters`)
  .describe(`Free text, at most ${NOTES_MAX} characters; "" clears it.`);

export const collectionItem = z
  .object({
    id: z.number().int().min(1),
    movieDbId: z.number().int().min(1),
    type: z.enum(['movie', 'show']),
    kind: z.enum(['movie', 'show']).describe('Same as `type`.'),
    isAnime: z.boolean(),
    mediaSource: z.literal('movie_db'),
    sourceId: z.number().int().min(1).describe('The id in `mediaSource`: the movie database id.'),
    season: z.number().int().min(0).describe('The season owned, or 0 when the item is the whole title (a movie, or a complete show).'),
    title: z.string(),
    year: z.number().int(),
    posterPath: z.string().describe('Poster image path, or "" when the title has none.'),
    format: collectionFormat,
    notes: z.string().describe('The user\'s notes, or "" when there are none.'),
    addedAt: z.iso.datetime(),
  })
  .meta({ id: 'CollectionItem' });
export type CollectionItem = z.infer<typeof collectionItem>;

export const collectionPage = z
  .object({
    items: z.array(collectionItem),
    nextCursor: z.string().optional().describe('Absent on the last page.'),
  })
  .meta({ id: 'CollectionPage' });
export type CollectionPage = z.infer<typeof collectionPage>;

export const collectionQuery = z.strictObject({
  type: collectionTypeFilter.optional().describe('`movie` and `show` exclude anime; `anime` is anime of either type.'),
  cursor: z.string().min(1).max(200).optional(),
  limit: wireInt(1, PAGE_MAX).default(PAGE_DEFAULT),
});
export type CollectionQuery = z.infer<typeof collectionQuery>;

export const addCollectionItemInput = z.strictObject({
  type: z.enum(['movie', 'show']),
  movieDbId: wireId(),
  format: collectionFormat,
  season: wireInt(1, PG_INT_MAX).optional().describe('Shows only: the season owned; omit for the whole title.'),
  notes: notes.optional(),
});
export type AddCollectionItemInput = z.infer<typeof addCollectionItemInput>;

export const itemId = wireId();

export const updateCollectionItemInput = z
  .strictObject({
    id: itemId,
    format: collectionFormat.optional(),
    notes: notes.optional(),
  })
  .refine((v) => v.format !== undefined || v.notes !== undefined, { message: 'give format, notes or both' });
export type UpdateCollectionItemInput = z.infer<typeof updateCollectionItemInput>;
