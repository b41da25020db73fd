// Wire shapes of the catalog on the public API (`CatalogItem` in the public OpenAPI document), and the query inputs.
// Inputs are typed as a caller writes them: the REST facade reads query-string text into numbers and
// booleans (src/rest/input-types.ts).
import { z } from 'zod';
import { queryBoolean } from '../wire/booleans.ts';
import { typeError, wireInt } from '../wire/numbers.ts';

export const titleType = z.enum(['movie', 'show']);
export const titleCategory = z.enum(['movie', 'show', 'anime']);

export const catalogItem = z
  .object({
    id: z.string().describe('The service\'s own title id, `{type}-{movieDbId}`; accepted as `punchplay_id` by playback.'),
    movieDbId: z.number().int().min(1),
    type: titleType,
    category: titleCategory,
    isAnime: z.boolean(),
    name: z.string(),
    year: z.number().int(),
    overview: z.string(),
    posterUrl: z.string().describe('Absolute poster URL, or "" when the title has no poster.'),
    backdropUrl: z.string().describe('Absolute backdrop URL, or "" when the title has no backdrop.'),
    communityRating: z.number().describe('Average rating on a 0-10 scale.'),
    releaseDate: z.string().describe('YYYY-MM-DD, or "" when unknown.'),
    posterPath: z.string(),
    backdropPath: z.string(),
    popularity: z.number(),
    runtimeMinutes: z.number().int().describe('Movie runtime or episode runtime; 0 when unknown.'),
    genres: z.array(z.string()),
    ageRating: z.string().describe('Certification, or "" when unknown.'),
    originalLanguage: z.string().describe('ISO 639-1 code, or "" when unknown.'),
    posterColor: z.string().describe('Dominant colour as #rrggbb, for placeholders while the poster loads.'),
    posterColorIsDark: z.boolean(),
  })
  .meta({ id: 'CatalogItem' });

export type CatalogItem = z.infer<typeof catalogItem>;

export const catalogItems = z.object({ items: z.array(catalogItem) }).meta({ id: 'CatalogItems' });

export const searchInput = z.strictObject({
  q: z.string(typeError('must be a string')).trim().min(1, 'must not be empty').max(200),
  type: titleType.optional(),
  anime: queryBoolean.optional(),
  year: wireInt(1800, 2200).optional(),
  genre: z.string().trim().min(1).max(60).optional(),
  limit: wireInt(1, 50).default(20),
});
export type SearchInput = z.infer<typeof searchInput>;

export const DISCOVER_SORTS = ['popularity', 'rating', 'release_date', 'name'] as const;

export const discoverInput = z
  .strictObject({
    type: titleType.optional(),
    category: titleCategory.optional(),
    genre: z.string().trim().min(1).max(60).optional(),
    yearFrom: wireInt(1800, 2200).optional(),
    yearTo: wireInt(1800, 2200).optional(),
    language: z.string().regex(/^[a-z]{2}$/, 'must be a two-letter ISO 639-1 code').optional(),
    minRating: z.number(typeError('must be a number')).min(0).max(10).optional(),
    sort: z.enum(DISCOVER_SORTS).default('popularity'),
    limit: wireInt(1, 100).default(20),
  })
  .refine((v) => v.yearFrom === undefined || v.yearTo === undefined || v.yearFrom <= v.yearTo, {
    message: 'yearFrom must not be after yearTo',
    path: ['yearFrom'],
  });
export type DiscoverInput = z.infer<typeof discoverInput>;

export const trendingInput = z.strictObject({
  type: titleType.optional(),
  category: titleCategory.optional(),
  limit: wireInt(1, 100).default(20),
});
export type TrendingInput = z.infer<typeof trendingInput>;
