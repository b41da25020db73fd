// What every importer yields, whatever the file: one record per thing the user had elsewhere, in the
// shapes the write path already validates (the bulk-sync items for history, ratings and the watchlist),
// each tagged with where in the file it came from. The file's location makes the Idempotency-Key of its
// batch (a second import of the same file changes nothing) and names the row in the unmatched download.
import type { HistoryItem, RatingItem, WatchlistItem } from '../sync/schemas.ts';
import type { ShowStatus } from '../library/library-items.ts';

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
);

/** An importer reads the uploaded file as a stream and yields records as it goes (files may be large). */
export type Importer = (file: AsyncIterable<Uint8Array>) => AsyncIterable<ImportRecord>;

/** A file the importer cannot read at all (wrong format, truncated archive): nothing is imported. */
export class ImportFileError extends Error {}
