// External lists: items imported from a list file users export from other trackers, through a source
// interface the list-sync job calls. Nothing is downloaded: a source reads a local file (an absolute path
// or a file:// URL). Both built-in sources read CSV with a header row and find their columns by name:
// - `letterboxd`: Letterboxd's export (Date, Name, Year, Letterboxd URI; a `tmdbID` column when a tool
//   added one). Letterboxd lists are of films: every row names a movie.
// - `trakt`: Trakt-style list exports (type, title, year, tmdb_id / tmdb, imdb_id, tvdb_id).
// Rows are resolved to catalog titles by movie_db_id, then tv_db_id, film_db_id, then name + year
// (src/core/catalog/resolve.ts); rows matching nothing are skipped.
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { readCsvFile } from '../catalog/import/csv.ts';
import type { TitleRef } from '../catalog/resolve.ts';

export interface ExternalListSource {
  readonly name: string;
  /** The titles of the list at `url`, in list order. Throws with a message users can read on failure. */
  read(url: string): Promise<TitleRef[]>;
}

/** An absolute local path from a path or file:// URL; anything that would need a download is refused. */
export function localFile(url: string): string {
  if (url.startsWith('file:')) return fileURLToPath(url);
  if (path.isAbsolute(url)) return url;
  throw new Error(`external lists are read from local files only (an absolute path or a file:// URL), not ${JSON.stringify(url)}`);
}

/** file:// URL of a local path, as externalUrl shows it. */
export function fileUrl(file: string): string {
  return new URL(`file://${path.resolve(file)}`).toString();
}

const norm = (h: string) => h.trim().toLowerCase().replace(/[^a-z]/g, '');

function column(header: string[], ...names: string[]): number {
  const wanted = names.map(norm);
  return header.findIndex((h) => wanted.includes(norm(h)));
}

const int = (s: string | undefined) => (s && /^\d+$/.test(s.trim()) ? Number(s.trim()) : undefined);

class CsvListSource implements ExternalListSource {
  readonly name: string;
  readonly #moviesOnly: boolean;

  constructor(name: string, moviesOnly: boolean) {
    this.name = name;
    this.#moviesOnly = moviesOnly;
  }

  async read(url: string): Promise<TitleRef[]> {
    const rows = readCsvFile(localFile(url));
    let header: string[] | null = null;
    let cols: Record<'type' | 'title' | 'year' | 'tmdb' | 'imdb' | 'tvdb', number> | null = null;
    const refs: TitleRef[] = [];
    try {
      for await (const row of rows) {
        if (!header) {
          // Letterboxd list exports open with a preamble (format line, the list's own name and date): the
          // header is the first row naming Name + Year, or an id column.
          const found = {
            type: column(row, 'type', 'media_type'),
            title: column(row, 'name', 'title'),
            year: column(row, 'year'),
            tmdb: column(row, 'tmdbid', 'tmdb_id', 'tmdb'),
            imdb: column(row, 'imdbid', 'imdb_id', 'imdb'),
            tvdb: column(row, 'tvdbid', 'tvdb_id', 'tvdb'),
          };
          if ((found.title >= 0 && found.year >= 0) || found.tmdb >= 0 || found.imdb >= 0) {
            header = row;
            cols = found;
          }
          continue;
        }
        const at = (i: number) => (i >= 0 ? row[i]?.trim() : undefined) || undefined;
        const kind = at(cols!.type)?.toLowerCase();
        const type = this.#moviesOnly || !kind || kind === 'movie' || kind === 'film' ? 'movie' : kind === 'show' || kind === 'tv' || kind === 'series' ? 'show' : null;
        if (!type) continue; // seasons, episodes, people: not titles
        refs.push({ type, movieDbId: int(at(cols!.tmdb)), filmDbId: at(cols!.imdb), tvDbId: int(at(cols!.tvdb)), title: at(cols!.title), year: int(at(cols!.year)) });
      }
    } catch (err) {
      const e = err as NodeJS.ErrnoException;
      if (e.code === 'ENOENT') throw new Error(`list file not found: ${url}`, { cause: err });
      throw err;
    }
    if (!header) throw new Error(`${this.name} list file has no header row with Name and Year, or a tmdbID or imdbID column: ${url}`);
    return refs;
  }
}

export const EXTERNAL_SOURCES: Record<string, ExternalListSource> = {
  letterboxd: new CsvListSource('letterboxd', true),
  trakt: new CsvListSource('trakt', false),
};

export function externalSource(name: string): ExternalListSource | undefined {
  return Object.hasOwn(EXTERNAL_SOURCES, name) ? EXTERNAL_SOURCES[name] : undefined;
}
