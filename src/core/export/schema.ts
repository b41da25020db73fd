// The export document: everything a user has, in one JSON document (docs/export-format.md describes each
// field). This zod schema is its definition in code: the platform procedure's output (and so the OpenAPI
// document), the `own` importer's reading of a document, and the tests' check of a real export.
// Names are snake_case, like the bulk-sync items, so a title reference is a bulk-sync title reference.
import { z } from 'zod';
import { COLLECTION_FORMATS } from '../collection/schemas.ts';
import { SHOW_STATUSES, RATING_SCOPES } from '../library/library-items.ts';
import { NOTIFICATION_KINDS } from '../notifications/kinds.ts';
import { PRIVACY } from '../profile/settings-schemas.ts';

/** The document's `format`: what a reader checks first. */
export const EXPORT_FORMAT = 'media-tracker-export';
/** The document's `version`: a reader refuses versions it does not know. Bumped when a field changes meaning or goes. */
export const EXPORT_VERSION = 1;

/**
 * Fields whose values a later export of the same data (or of its import into another account) does not
 * repeat: when the document was made, and what belongs to the account rather than to its data.
 */
export const REGENERATED_FIELDS = ['exported_at', 'profile.username', 'profile.joined_at'] as const;

const dateTime = z.iso.datetime().describe('ISO 8601 date-time in UTC, to the millisecond');
const int = z.number().int();

const exportTitle = z
  .strictObject({
    type: z.enum(['movie', 'show']).describe('How the title is routed: a movie, or a show with seasons and episodes.'),
    category: z.enum(['movie', 'show', 'anime']).describe('The catalog\'s category: anime is a movie or a show.'),
    movie_db_id: int.min(1).describe('The movie database id; with `type`, the title\'s key in this service.'),
    tv_db_id: int.nullable().describe('The TV database id, when the catalog knows it.'),
    film_db_id: z.string().nullable().describe('The film database id (e.g. `tt0245429`), when the catalog knows it.'),
    anime_db_id: int.nullable().describe('The anime database id, when the catalog knows it.'),
    external_ids: z.record(z.string(), z.union([z.string(), z.number()])).describe('Other ids the catalog holds, by source name; {} when none.'),
    name: z.string(),
    year: int.describe('Release year (a show: its first air year).'),
  })
  .meta({ id: 'ExportTitle', description: 'A title, named by every id the catalog knows, and by name and year.' });

const season = int.min(0).nullable();
const episode = int.min(1).nullable();

const exportHistoryEntry = z.strictObject({
  title: exportTitle,
  season: season.describe('The episode\'s season (0: specials); null for a movie.'),
  episode: episode.describe('The episode\'s number in its season; null for a movie.'),
  watched_at: dateTime,
  runtime_minutes: int.min(0).nullable().describe('Minutes this watch counted for; null when unknown.'),
});

const exportRating = z.strictObject({
  title: exportTitle,
  scope: z.enum(RATING_SCOPES).describe('`title`: a movie; `series`: a whole show; `season`; `episode`.'),
  season: season.describe('Set for scopes season and episode.'),
  episode: episode.describe('Set for scope episode.'),
  rating: int.min(1).max(10),
  rated_at: dateTime,
});

const exportFavourite = z.strictObject({ title: exportTitle, favourited_at: dateTime });

const exportShowStatus = z.strictObject({
  title: exportTitle,
  status: z.enum(SHOW_STATUSES),
  set_by: z.enum(['user', 'auto']).describe('`user`: chosen by the user; `auto`: set by the rules that follow watches.'),
});

const exportListItem = z.strictObject({ title: exportTitle, added_at: dateTime });

const exportList = z.strictObject({
  name: z.string(),
  description: z.string().describe('"" when none.'),
  is_public: z.boolean(),
  kind: z.enum(['plain', 'dynamic', 'external']).describe('`plain`: items chosen by hand; `dynamic`: items computed from `dynamic_filters`; `external`: items read from a file the operator manages.'),
  dynamic_filters: z.record(z.string(), z.unknown()).nullable().describe('The filters of a dynamic list; null otherwise.'),
  external_source: z.string().nullable().describe('The source of an external list; null otherwise.'),
  items: z.array(exportListItem).describe('In the list\'s order.'),
});

const exportCollectionItem = z.strictObject({
  title: exportTitle,
  format: z.enum(COLLECTION_FORMATS),
  season: int.min(1).nullable().describe('The season this copy holds; null for a whole title.'),
  notes: z.string().describe('"" when none.'),
  added_at: dateTime,
});

const exportContinueWatching = z.strictObject({
  title: exportTitle,
  season: season.describe('The episode in progress (a show); null for a movie.'),
  episode: episode,
  progress: z.number().gt(0).max(1).describe('Fraction watched, over 0 and at most 1.'),
  position_seconds: int.min(0).nullable(),
  duration_seconds: int.min(0).nullable(),
  updated_at: dateTime.describe('The last playback progress; the entry leaves Continue Watching 30 days after it.'),
});

export const exportProfile = z.strictObject({
  username: z.string(),
  display_name: z.string(),
  avatar_url: z.string().nullable(),
  bio: z.string().describe('"" when none.'),
  privacy: z.enum(PRIVACY),
  joined_at: dateTime,
});

export const exportPreferences = z.strictObject({
  region: z.string().nullable(),
  language: z.string().nullable(),
  spoilers: z.strictObject({ hide_episode_titles: z.boolean(), hide_overviews: z.boolean(), hide_images: z.boolean(), hide_ratings: z.boolean() }),
  watched_threshold: z.number().min(0.5).max(1),
});

const channels = z.strictObject({ in_app: z.boolean(), push: z.boolean() });
export const exportNotificationPreferences = z.strictObject(
  Object.fromEntries(NOTIFICATION_KINDS.map((k) => [k, channels])) as Record<(typeof NOTIFICATION_KINDS)[number], typeof channels>,
);

/** The head of the document: what comes before the arrays (small, known before any array is read). */
const exportHead = z.strictObject({
  format: z.literal(EXPORT_FORMAT),
  version: z.literal(EXPORT_VERSION),
  exported_at: dateTime.describe('When the export was made (regenerated by every export).'),
  profile: exportProfile,
  preferences: exportPreferences,
  notification_preferences: exportNotificationPreferences,
});

/** The arrays, in the order the document holds them (the `own` importer applies them in this order). */
export const EXPORT_ARRAYS = {
  history: z.array(exportHistoryEntry).describe('Every watch, oldest first.'),
  ratings: z.array(exportRating).describe('Every rating, at every level.'),
  favourites: z.array(exportFavourite),
  show_statuses: z.array(exportShowStatus),
  watchlist: z.array(exportListItem).describe('The watchlist, in its order.'),
  lists: z.array(exportList).describe('The lists the user owns (not the watchlist), with their items.'),
  collection: z.array(exportCollectionItem),
  continue_watching: z.array(exportContinueWatching).describe('The entries Continue Watching lists now.'),
};
export type ExportArray = keyof typeof EXPORT_ARRAYS;
export const EXPORT_ARRAY_NAMES = Object.keys(EXPORT_ARRAYS) as ExportArray[];

export const exportDocument = exportHead.extend(EXPORT_ARRAYS).meta({
  id: 'ExportDocument',
  description: `Everything the user has. \`format\` is \`${EXPORT_FORMAT}\`, \`version\` ${EXPORT_VERSION}. Regenerated by every export: ${REGENERATED_FIELDS.join(', ')}.`,
});

export type ExportTitle = z.infer<typeof exportTitle>;
export type ExportHead = z.infer<typeof exportHead>;
export type ExportDocument = z.infer<typeof exportDocument>;
export type ExportListItem = z.infer<typeof exportListItem>;
export type ExportPreferences = z.infer<typeof exportPreferences>;
export type ExportNotificationPreferences = z.infer<typeof exportNotificationPreferences>;
/** One element of an array of the document. */
export type ExportElement<K extends ExportArray> = z.infer<(typeof EXPORT_ARRAYS)[K]>[number];
