// Where missing titles come from: a metadata provider behind one small interface, so another provider
// can be added beside the movie database. The movie database's is the catalog import's own source
// (import/movie-db-api.ts), given a fetch that takes a token from the provider's rate limit first, gives
// up on a request that hangs, and counts every answer.
import { MovieDbApiSource } from '../import/movie-db-api.ts';
import type { ImportTitle } from '../import/types.ts';
import { catalogProviderRequests } from '../../metrics/catalog.ts';
import type { ProviderBucket } from './bucket.ts';

export type ProviderRef = { type: 'movie' | 'show'; movieDbId: number };

export interface TitleProvider {
  /**
   * The title with its seasons and episodes; undefined when the provider has no such title. Throws
   * SourceAnswerError (import/types.ts) for an answer that does not fit, any other error for a failure.
   */
  title(ref: ProviderRef): Promise<ImportTitle | undefined>;
  /** The title another id names: an IMDb id (`film_db`) or a TheTVDB id (`tv_db`). */
  find(kind: 'film_db' | 'tv_db', externalId: string | number, type: 'movie' | 'show'): Promise<ProviderRef | undefined>;
}

/** One request to the provider gives up after this (a provider that hangs is a failure, retried later). */
const REQUEST_TIMEOUT_MS = 10_000;

function answerOf(status: number): string {
  if (status < 300) return 'ok';
  if (status === 404) return 'not_found';
  if (status === 429) return 'rate_limited';
  return 'failed';
}

export type MovieDbProviderOptions = { apiKey: string; baseUrl: string; bucket: ProviderBucket; signal: AbortSignal };

export function movieDbProvider(opts: MovieDbProviderOptions): TitleProvider {
  const limitedFetch: typeof globalThis.fetch = async (url, init) => {
    await opts.bucket.take();
    opts.signal.throwIfAborted();
    try {
      const res = await fetch(url, { ...init, signal: AbortSignal.any([opts.signal, AbortSignal.timeout(REQUEST_TIMEOUT_MS)]) });
      catalogProviderRequests.inc({ answer: answerOf(res.status) });
      return res;
    } catch (err) {
      catalogProviderRequests.inc({ answer: 'error' });
      throw err;
    }
  };
  // A 429 or 5xx is tried again twice, waiting at most 5 s: a request's bound is short, and what is not
  // stored now is fetched again on the next use or by the refresh.
  return new MovieDbApiSource({ apiKey: opts.apiKey, baseUrl: opts.baseUrl, ids: [], fetch: limitedFetch, maxRetries: 2, maxRetryDelayMs: 5_000 });
}
