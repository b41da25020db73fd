// The production catalog source: the movie database's v3 API (TMDB). Fetches the given titles, or the
// ids on the first pages of its popular lists, with their external ids, age ratings and (for shows)
// every season's episodes, and maps them to ImportTitle. Each answer is checked against the shape the
// API documents (movie-db-answers.ts) before it is mapped. `fetch` is injectable (the living catalog
// passes one that waits for the provider's rate limit); tests point baseUrl at a local fake server,
// since no outside service is reachable in tests.
import { checked, findAnswer, movieAnswer, MovieDbAnswerError, seasonAnswer, showAnswer } from './movie-db-answers.ts';
import type { CatalogSource, ImportEpisode, ImportSeason, ImportTitle } from './types.ts';

export type MovieDbRef = { type: 'movie' | 'show'; movieDbId: number };

export type MovieDbApiOptions = {
  /** A v3 API key (sent as api_key) or a v4 read access token (a JWT, sent as a bearer token). */
  apiKey: string;
  baseUrl?: string;
  /** Titles to fetch, or how many pages of the popular movies and popular shows lists to walk. */
  ids: MovieDbRef[] | { popularPages: number };
  fetch?: typeof globalThis.fetch;
  /** Retries on 429 and 5xx responses (default 5); Retry-After is honoured up to maxRetryDelayMs. */
  maxRetries?: number;
  maxRetryDelayMs?: number;
};

type Json = Record<string, unknown>;

/** The movie database answered 401: a wrong or revoked API key. Retrying will not help. */
export class MovieDbAuthError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'MovieDbAuthError';
  }
}

const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);
const arr = (v: unknown): Json[] => (Array.isArray(v) ? (v.filter((x) => x && typeof x === 'object') as Json[]) : []);
const obj = (v: unknown): Json => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : {});
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function parseJson(body: string, pathname: string): unknown {
  try {
    return JSON.parse(body);
  } catch {
    throw new MovieDbAnswerError(`the movie database answered ${pathname} with a body that is not JSON`);
  }
}

/** Retry-After in seconds or as an HTTP date; without one, exponential backoff from half a second. */
function retryDelayMs(header: string | null, attempt: number): number {
  if (header !== null && header.trim() !== '') {
    const seconds = Number(header);
    if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
    const at = Date.parse(header);
    if (!Number.isNaN(at)) return Math.max(0, at - Date.now());
  }
  return 500 * 2 ** attempt;
}

/** Fields a movie and a show map alike; `date` is the release or first-air date. */
function commonFields(d: Json, date: string) {
  return {
    tagline: str(d.tagline),
    year: yearOf(date),
    releaseDate: date || null,
    overview: str(d.overview),
    posterPath: str(d.poster_path),
    backdropPath: str(d.backdrop_path),
    popularity: num(d.popularity),
    communityRating: num(d.vote_average),
    voteCount: num(d.vote_count),
    genres: genres(d.genres),
    originalLanguage: str(d.original_language),
    status: str(d.status),
  };
}

function yearOf(date: string): number {
  return /^\d{4}/.test(date) ? Number(date.slice(0, 4)) : Number.NaN;
}

function genres(v: unknown): string[] {
  return arr(v).map((g) => str(g.name)).filter((n) => n !== '');
}

/** The movie database has no anime flag; Japanese animation is the usual working definition. */
function looksAnime(d: Json): boolean {
  return str(d.original_language) === 'ja' && arr(d.genres).some((g) => g.id === 16 || g.name === 'Animation');
}

/** External ids other than those with their own column, for the title's external_ids map. */
function otherIds(ext: Json): Record<string, string | number> {
  const out: Record<string, string | number> = {};
  for (const [k, v] of Object.entries(ext)) {
    if (k === 'id' || k === 'imdb_id' || k === 'tvdb_id' || v === null || v === '') continue;
    if (typeof v === 'string' || typeof v === 'number') out[k.replace(/_id$/, '')] = v;
  }
  return out;
}

/** US certification when there is one, else the first non-empty one. */
function movieAgeRating(d: Json): string {
  const countries = arr(obj(d.release_dates).results);
  const pick = (c: Json | undefined) => arr(c?.release_dates).map((r) => str(r.certification)).find((x) => x !== '') ?? '';
  const us = pick(countries.find((c) => c.iso_3166_1 === 'US'));
  if (us) return us;
  for (const c of countries) {
    const any = pick(c);
    if (any) return any;
  }
  return d.adult === true ? '18' : '';
}

function showAgeRating(d: Json): string {
  const ratings = arr(obj(d.content_ratings).results);
  return str(ratings.find((r) => r.iso_3166_1 === 'US')?.rating) || str(ratings.find((r) => str(r.rating) !== '')?.rating);
}

export class MovieDbApiSource implements CatalogSource {
  readonly name = 'movie_db_api';
  readonly #apiKey: string;
  readonly #baseUrl: string;
  readonly #ids: MovieDbApiOptions['ids'];
  readonly #fetch: typeof globalThis.fetch;
  readonly #maxRetries: number;
  readonly #maxRetryDelayMs: number;
  #skipped = 0;

  constructor(options: MovieDbApiOptions) {
    if (!options.apiKey) throw new Error('the movie database API source needs an API key');
    this.#apiKey = options.apiKey;
    this.#baseUrl = (options.baseUrl ?? 'https://api.themoviedb.org').replace(/\/+$/, '');
    this.#ids = options.ids;
    this.#fetch = options.fetch ?? globalThis.fetch;
    this.#maxRetries = options.maxRetries ?? 5;
    this.#maxRetryDelayMs = options.maxRetryDelayMs ?? 30_000;
  }

  async estimate(): Promise<number | undefined> {
    // Popular pages hold 20 titles each, for movies and for shows.
    return Array.isArray(this.#ids) ? this.#ids.length : this.#ids.popularPages * 40;
  }

  /** GET a v3 path; undefined on 404 (a title deleted upstream is skipped, not fatal). */
  async get(pathname: string, query: Record<string, string> = {}): Promise<Json | undefined> {
    const url = new URL(`${this.#baseUrl}/3${pathname}`);
    const headers: Record<string, string> = { accept: 'application/json' };
    // v4 read access tokens are JWTs; v3 keys are 32 hex characters.
    if (this.#apiKey.startsWith('eyJ')) headers.authorization = `Bearer ${this.#apiKey}`;
    else url.searchParams.set('api_key', this.#apiKey);
    for (const [k, v] of Object.entries(query)) url.searchParams.set(k, v);

    for (let attempt = 0; ; attempt++) {
      const res = await this.#fetch(url, { headers });
      if (res.ok) return obj(parseJson(await res.text(), pathname));
      const body = await res.text().catch(() => '');
      if (res.status === 404) return undefined;
      if (res.status === 401) {
        throw new MovieDbAuthError(`the movie database rejected the API key (401 on ${pathname}): check the configured key`);
      }
      if ((res.status === 429 || res.status >= 500) && attempt < this.#maxRetries) {
        await sleep(Math.min(retryDelayMs(res.headers.get('retry-after'), attempt), this.#maxRetryDelayMs));
        continue;
      }
      throw new Error(`the movie database answered ${res.status} on ${pathname}: ${body.slice(0, 200)}`);
    }
  }

  async #refs(): Promise<MovieDbRef[]> {
    if (Array.isArray(this.#ids)) return this.#ids;
    const refs: MovieDbRef[] = [];
    for (const [type, list] of [['movie', '/movie/popular'], ['show', '/tv/popular']] as const) {
      for (let page = 1; page <= this.#ids.popularPages; page++) {
        const data = await this.get(list, { page: String(page) });
        for (const r of arr(data?.results)) {
          const id = num(r.id);
          if (id !== undefined) refs.push({ type, movieDbId: id });
        }
        if (page >= (num(data?.total_pages) ?? 0)) break;
      }
    }
    return refs;
  }

  async *items(): AsyncGenerator<ImportTitle> {
    for (const ref of await this.#refs()) {
      let title: ImportTitle | undefined;
      try {
        title = await this.title(ref);
      } catch (err) {
        // A malformed answer skips that title, not the import.
        if (!(err instanceof MovieDbAnswerError)) throw err;
        this.#skipped++;
      }
      if (title) yield title;
    }
  }

  skipped(): number {
    return this.#skipped;
  }

  /** The title with its seasons and episodes; undefined when the movie database has no such title. */
  title(ref: MovieDbRef): Promise<ImportTitle | undefined> {
    return ref.type === 'movie' ? this.movie(ref.movieDbId) : this.show(ref.movieDbId);
  }

  /** The title an IMDb id (`film_db`) or a TheTVDB id (`tv_db`) names, through the API's find by external id. */
  async find(kind: 'film_db' | 'tv_db', externalId: string | number, type: 'movie' | 'show'): Promise<MovieDbRef | undefined> {
    const source = kind === 'film_db' ? 'imdb_id' : 'tvdb_id';
    const d = await this.get(`/find/${encodeURIComponent(String(externalId))}`, { external_source: source });
    if (!d) return undefined;
    const found = checked(findAnswer, d, `${source} ${externalId}`);
    const first = (type === 'movie' ? found.movie_results : found.tv_results)?.[0];
    return first ? { type, movieDbId: first.id } : undefined;
  }

  /** The answer checked: its shape, and that it is the title asked for. */
  #checkedTitle(d: Json, schema: typeof movieAnswer | typeof showAnswer, type: 'movie' | 'show', id: number): void {
    const what = `${type} ${id}`;
    const answer = checked(schema, d, what);
    if (answer.id !== id) throw new MovieDbAnswerError(`the movie database answered ${type} ${answer.id} when asked for ${what}`);
  }

  async movie(id: number): Promise<ImportTitle | undefined> {
    const d = await this.get(`/movie/${id}`, { append_to_response: 'external_ids,release_dates' });
    if (!d) return undefined;
    this.#checkedTitle(d, movieAnswer, 'movie', id);
    const ext = obj(d.external_ids);
    const releaseDate = str(d.release_date);
    return {
      type: 'movie',
      movieDbId: id,
      isAnime: looksAnime(d),
      name: str(d.title) || str(d.original_title),
      originalName: str(d.original_title),
      ...commonFields(d, releaseDate),
      ageRating: movieAgeRating(d),
      runtimeMinutes: num(d.runtime) ?? null,
      filmDbId: str(d.imdb_id) || str(ext.imdb_id) || null,
      externalIds: otherIds(ext),
      source: 'movie_db_api',
    };
  }

  async show(id: number): Promise<ImportTitle | undefined> {
    const d = await this.get(`/tv/${id}`, { append_to_response: 'external_ids,content_ratings' });
    if (!d) return undefined;
    this.#checkedTitle(d, showAnswer, 'show', id);
    const ext = obj(d.external_ids);
    const seasons: ImportSeason[] = [];
    for (const summary of arr(d.seasons)) {
      const number = num(summary.season_number);
      if (number === undefined) continue;
      const s = await this.get(`/tv/${id}/season/${number}`);
      if (s) checked(seasonAnswer, s, `show ${id} season ${number}`);
      const episodes: ImportEpisode[] = arr(s?.episodes).flatMap((e) => {
        const n = num(e.episode_number);
        if (n === undefined) return [];
        return [{
          episodeNumber: n,
          name: str(e.name),
          overview: str(e.overview),
          airDate: str(e.air_date) || null,
          runtimeMinutes: num(e.runtime) ?? null,
          stillPath: str(e.still_path),
        }];
      });
      seasons.push({
        seasonNumber: number,
        name: str(s?.name) || str(summary.name),
        overview: str(s?.overview) || str(summary.overview),
        airDate: str(s?.air_date) || str(summary.air_date) || null,
        posterPath: str(s?.poster_path) || str(summary.poster_path),
        episodes,
        episodeCount: num(summary.episode_count),
      });
    }
    const firstAir = str(d.first_air_date);
    const runTimes = Array.isArray(d.episode_run_time) ? d.episode_run_time.filter((n) => typeof n === 'number') : [];
    return {
      type: 'show',
      movieDbId: id,
      isAnime: looksAnime(d),
      name: str(d.name) || str(d.original_name),
      originalName: str(d.original_name),
      ...commonFields(d, firstAir),
      ageRating: showAgeRating(d),
      episodeRunTimeMinutes: (runTimes[0] as number | undefined) ?? null,
      tvDbId: num(ext.tvdb_id) ?? null,
      filmDbId: str(ext.imdb_id) || null,
      externalIds: otherIds(ext),
      seasons,
      source: 'movie_db_api',
    };
  }
}
