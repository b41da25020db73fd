// Wire shapes of Up next (GET /me/up-next, `UpNextPage` in the platform OpenAPI document): the query, and
// a page of shows each with its next episode. The show is the catalog's own item (CatalogItem); the
// episode's fields are named as the calendar's and the history's are.
import { z } from 'zod';
import { catalogItem } from '../catalog/schemas.ts';
import { wireInt } from '../wire/numbers.ts';

const LIMIT_DEFAULT = 20;
const LIMIT_MAX = 100;

export const upNextQuery = z.strictObject({
  cursor: z.string().min(1).max(500).optional().describe('The previous page\'s `nextCursor`; keep `limit` identical.'),
  limit: wireInt(1, LIMIT_MAX).default(LIMIT_DEFAULT),
});
export type UpNextQuery = z.infer<typeof upNextQuery>;

const count = z.number().int().min(0);

const upNextEpisode = z
  .strictObject({
    season: z.number().int().min(1),
    episode: z.number().int().min(1),
    episodeTitle: z.string(),
    airDate: z.string().nullable().describe('YYYY-MM-DD; null when the catalog has no date (such an episode counts as aired).'),
    runtimeMinutes: z.number().int().nullable(),
    stillUrl: z.string().describe('"" when the episode has no still.'),
  })
  .meta({ id: 'UpNextEpisode' });

const upNextItem = z
  .strictObject({
    show: catalogItem,
    nextEpisode: upNextEpisode.describe('The first regular episode after the furthest one the user watched (by season and episode number) that has aired.'),
    watchedEpisodes: count.describe('Different regular episodes (season 1 and up) the user watched.'),
    airedEpisodes: count.describe('Regular episodes aired: air date today (UTC) or earlier, or no air date.'),
    lastWatchedAt: z.iso.datetime().describe('The user\'s latest watch of the show (any episode, specials included).'),
  })
  .meta({ id: 'UpNextItem' });
export type UpNextItem = z.infer<typeof upNextItem>;

export const upNextPage = z
  .strictObject({ items: z.array(upNextItem), nextCursor: z.string().optional().describe('Absent on the last page.') })
  .meta({ id: 'UpNextPage' });
export type UpNextPage = z.infer<typeof upNextPage>;
