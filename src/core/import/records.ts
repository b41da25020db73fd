// What every importer yields, whatever the file: one record per thing the user had elsewhere, in the
// shapes the write path already validates (the bulk-sync items for history, ratings and the watchlist),
// each tagged with where in the file it came from. The file's location makes the Idempotency-Key of its
// batch (a second import of the same file changes nothing) and names the row in the unmatched download.
import type { HistoryItem, RatingItem, WatchlistItem } from '../sync/schemas.ts';
import type { ShowStatus } from '../library/library-items.ts';
import type { CollectionFormat } from '../collection/schemas.ts';
import type { ExportNotificationPreferences, ExportPreferences } from '../export/schema.ts';

/** The import sources: the peers' export files, and this service's own export document. */
export const IMPORT_SOURCES = ['trakt', 'letterboxd', 'simkl', 'own'] as const;
export type ImportSource = (typeof IMPORT_SOURCES)[number];

/** Where a record came from in the uploaded file: a path inside it (a ZIP member, a JSON array) and a row. */
export type SourceRow = {
  /** e.g. `diary.csv`, `watched-movies.json`, `lists/favourites.csv`. */
  file: string;
  /** 1-based position of the row or array element inside `file`. */
  row: number;
  /** How the source names the title, for the unmatched download (title, year, the source's ids). */
  label: string;
};

/** How an importer names a title: the bulk-sync item's title fields (ids first, then title + year). */
export type ImportTitleRef = Pick<HistoryItem, 'movie_db_id' | 'tv_db_id' | 'film_db_id' | 'anime_db_id' | 'title' | 'year'> & {
  type?: 'movie' | 'show' | null;
};

export type ImportRecord = { at: SourceRow } & (
  | { kind: 'history'; item: HistoryItem }
  | { kind: 'rating'; item: RatingItem }
  | { kind: 'watchlist'; item: WatchlistItem }
  | { kind: 'show_status'; title: ImportTitleRef; status: ShowStatus }
  | { kind: 'favourite'; title: ImportTitleRef }
  | {
      kind: 'list';
      /** The list's name in the source; a list of the same name is reused, so a re-import adds nothing. */
      name: string;
      description: string | null;
      items: { title: ImportTitleRef; note: string | null; at: SourceRow }[];
    }
  | OwnKinds
);

/**
 * What only this service's own export carries (sources/own.ts reads it, apply-own-kinds.ts applies it):
 * the times favourites and list items were made, who set a status, list details, the collection,
 * Continue Watching, the profile and the preferences. Dates are ISO 8601 date-times.
 */
type OwnKinds =
  | { kind: 'own_profile'; profile: { display_name: string; avatar_url: string | null; bio: string; privacy: 'public' | 'private' } }
  | { kind: 'own_preferences'; preferences: ExportPreferences }
  | { kind: 'own_notification_preferences'; preferences: ExportNotificationPreferences }
  | { kind: 'own_favourite'; title: ImportTitleRef; favourited_at: string }
  | { kind: 'own_show_status'; title: ImportTitleRef; status: ShowStatus; set_by: 'user' | 'auto' }
  | { kind: 'own_watchlist_item'; title: ImportTitleRef; added_at: string }
  | {
      kind: 'own_list';
      /** A list of the user's with the same name is reused (its details updated), so a re-import adds nothing. */
      name: string;
      description: string;
      is_public: boolean;
      /** `external` lists are read from operator files: they are reported, not imported. */
      list_kind: 'plain' | 'dynamic' | 'external';
      dynamic_filters: Record<string, unknown> | null;
      items: { title: ImportTitleRef; added_at: string; at: SourceRow }[];
    }
  | { kind: 'own_collection_item'; title: ImportTitleRef; format: CollectionFormat; season: number | null; notes: string; added_at: string }
  | {
      kind: 'own_continue_watching';
      title: ImportTitleRef;
      season: number | null;
      episode: number | null;
      progress: number;
      position_seconds: number | null;
      duration_seconds: number | null;
      updated_at: string;
    };

type OwnKind = OwnKinds['kind'];
const OWN_KINDS: readonly OwnKind[] = [
  'own_profile',
  'own_preferences',
  'own_notification_preferences',
  'own_favourite',
  'own_show_status',
  'own_watchlist_item',
  'own_list',
  'own_collection_item',
  'own_continue_watching',
];
/** A record of one of the own kinds. */
export type OwnRecord = Extract<ImportRecord, { kind: OwnKind }>;
export const isOwnRecord = (r: ImportRecord): r is OwnRecord => (OWN_KINDS as readonly string[]).includes(r.kind);

/** An importer reads the uploaded file as a stream and yields records as it goes (files may be large). */
export type Importer = (file: AsyncIterable<Uint8Array>) => AsyncIterable<ImportRecord>;

/** A file the importer cannot read at all (wrong format, truncated archive): nothing is imported. */
export class ImportFileError extends Error {}
