// Fetching titles from the metadata provider into the catalog, once per title however many ask:
// - In this process, asks for the same title share one fetch (the `#running` map).
// - Across instances, the fetch is claimed in catalog_fetch first (repository.ts): an instance that finds
//   it claimed elsewhere waits for the title to appear instead of fetching it too.
// - A fetch that does not store the title records why and when to try again: missing upstream or an
//   answer that does not fit, a day later; a failing provider, after a backoff that doubles from a minute
//   up to six hours. Nothing a provider does becomes a user's error: every failure is logged and counted.
// A title is written through the catalog importer (one short transaction), as `catalog:import` writes it.
import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import { LRUCache } from 'lru-cache';
import { importSource } from '../import/importer.ts';
import { SourceAnswerError, type CatalogSource, type ImportTitle } from '../import/types.ts';
import { resolveTitles, type TitleRef } from '../resolve.ts';
import type { Logger } from '../../log.ts';
import { catalogFetchDuration, catalogFetches, catalogFetchesInFlight } from '../../metrics/catalog.ts';
import type { ProviderRef, TitleProvider } from './provider.ts';
import { claimFetch, fetchRunningElsewhere, releaseClaim, settleNotStored, settleStored, titleStored, type FetchState } from './repository.ts';

export type FetchReason = 'first_use' | 'refresh';
/**
 * stored, missing (the provider has no such title), invalid (its answer did not fit), failed (it did not
 * answer well); elsewhere (another instance fetched it, or was still fetching it when the wait ended);
 * waiting (an earlier fetch's retry time has not come); busy (too many fetches under way here).
 */
export type FetchOutcome = FetchState | 'stored' | 'elsewhere' | 'waiting' | 'busy';

export type FetcherOptions = {
  orm: MikroORM;
  provider: TitleProvider;
  log: Logger;
  /** How long a request waits for the titles it asked for (they keep coming in the background after). */
  waitMs: number;
  /** How long a claim holds before another instance may take the fetch over (its instance died). */
  leaseMs?: number;
  /** Fetches under way at once in this instance; past it a first use is answered as if the provider were away. */
  maxRunning?: number;
};

const DAY_MS = 86_400_000;
const RETRY_FAILED_FROM_MS = 60_000;
const RETRY_FAILED_UP_TO_MS = 6 * 3_600_000;
/** How often an instance looks for a title another instance is fetching. */
const POLL_ELSEWHERE_MS = 100;
/** How long an instance looks for a title another instance is fetching (a request waits far less). */
const WAIT_ELSEWHERE_MS = 30_000;
const FIND_FAILED_TTL_MS = 60_000;

const keyOf = (ref: ProviderRef) => `${ref.type}:${ref.movieDbId}`;
const delay = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());

function oneTitle(title: ImportTitle): CatalogSource {
  return {
    name: title.source,
    items: async function* () {
      yield title;
    },
  };
}

export class CatalogFetcher {
  readonly #orm: MikroORM;
  readonly #provider: TitleProvider;
  readonly #log: Logger;
  readonly waitMs: number;
  readonly #leaseMs: number;
  readonly #maxRunning: number;
  readonly #running = new Map<string, Promise<FetchOutcome>>();
  /** What the provider's find answered per other id (undefined: nothing), for an hour. */
  readonly #found = new LRUCache<string, ProviderRef | 'none'>({ max: 10_000, ttl: 3_600_000 });
  #closed = false;

  constructor(opts: FetcherOptions) {
    this.#orm = opts.orm;
    this.#provider = opts.provider;
    this.#log = opts.log;
    this.waitMs = opts.waitMs;
    this.#leaseMs = opts.leaseMs ?? 5 * 60_000;
    this.#maxRunning = opts.maxRunning ?? 200;
  }

  /**
   * Fetches the titles `refs` name that the catalog lacks, and waits for them at most `waitMs`: what is
   * not there by then keeps coming in the background, for the next ask. Refs without a movie database
   * id are looked up by their IMDb or TheTVDB id. Never throws for the provider's sake. Inside a
   * transaction it does not wait (the store needs a connection the transaction may be holding).
   */
  async ensure(em: EntityManager, refs: TitleRef[], waitMs = this.waitMs): Promise<void> {
    if (this.#closed || refs.length === 0) return;
    try {
      const found = await resolveTitles(em, refs);
      await this.#fetchMissing(em, refs.filter((_, i) => !found[i]), waitMs);
    } catch (err) {
      this.#log.warn({ err }, 'catalog fetch: could not look for missing titles');
    }
  }

  /**
   * `ensure` for refs the caller has just looked for and not found (no second look). Whether it waited
   * for a fetch: false when none could start (no id to fetch by) or inside a transaction, where looking
   * again finds nothing new.
   */
  async ensureMissing(em: EntityManager, missing: TitleRef[], waitMs = this.waitMs): Promise<boolean> {
    if (this.#closed || missing.length === 0) return false;
    try {
      return await this.#fetchMissing(em, missing, waitMs);
    } catch (err) {
      this.#log.warn({ err }, 'catalog fetch: could not fetch missing titles');
      return false;
    }
  }

  async #fetchMissing(em: EntityManager, missing: TitleRef[], waitMs: number): Promise<boolean> {
    const work = new Map<string, Promise<unknown>>();
    for (const ref of missing) {
      if (ref.movieDbId !== undefined) {
        const target = { type: ref.type, movieDbId: ref.movieDbId };
        work.set(keyOf(target), this.fetch(target, 'first_use'));
      } else if (ref.filmDbId !== undefined || ref.tvDbId !== undefined) {
        work.set(`find:${ref.type}:${ref.filmDbId ?? ''}:${ref.tvDbId ?? ''}`, this.#findAndFetch(ref));
      }
    }
    if (work.size === 0 || em.isInTransaction()) return false;
    await Promise.race([Promise.allSettled(work.values()), delay(waitMs)]);
    return true;
  }

  /** Fetches the title now (first use or refresh), sharing a fetch already under way. `force`: skip a retry wait. */
  fetch(ref: ProviderRef, reason: FetchReason, force = false): Promise<FetchOutcome> {
    const key = keyOf(ref);
    const running = this.#running.get(key);
    if (running) return running;
    if (this.#closed || this.#running.size >= this.#maxRunning) return Promise.resolve('busy');
    // Never rejects: a fetch started inside a transaction, or outliving the wait, has no one awaiting it,
    // and a rejection no one handles would end the process.
    const started = this.#fetchOnce(ref, reason, force)
      .catch((err: unknown): FetchOutcome => {
        this.#log.warn({ err, ...ref }, 'catalog fetch: could not fetch the title');
        return 'failed';
      })
      .finally(() => {
        this.#running.delete(key);
        catalogFetchesInFlight.set(this.#running.size);
      });
    this.#running.set(key, started);
    catalogFetchesInFlight.set(this.#running.size);
    return started;
  }

  /** Stops: no new fetch starts, and those under way are left to fail or finish within a second. */
  async close(): Promise<void> {
    this.#closed = true;
    await Promise.race([Promise.allSettled(this.#running.values()), delay(1_000)]);
  }

  async #findAndFetch(ref: TitleRef): Promise<FetchOutcome | undefined> {
    const [kind, id] = ref.filmDbId !== undefined ? (['film_db', ref.filmDbId] as const) : (['tv_db', ref.tvDbId!] as const);
    const cacheKey = `${kind}:${id}:${ref.type}`;
    let target = this.#found.get(cacheKey);
    if (target === undefined) {
      try {
        target = (await this.#provider.find(kind, id, ref.type)) ?? 'none';
      } catch (err) {
        this.#log.warn({ err: String(err), kind, id }, 'catalog fetch: the provider could not look up an id');
        // Not asked again for a minute: a provider that is down is not asked once per request meanwhile.
        this.#found.set(cacheKey, 'none', { ttl: FIND_FAILED_TTL_MS });
        return undefined;
      }
      this.#found.set(cacheKey, target);
    }
    if (target === 'none') return undefined;
    // The title may be in the catalog already, under its movie database id, without this other id.
    try {
      if (await titleStored(this.#orm.em.fork(), target)) return 'stored';
    } catch (err) {
      this.#log.warn({ err, ...target }, 'catalog fetch: could not look for a title');
      return undefined;
    }
    return this.fetch(target, 'first_use');
  }

  async #fetchOnce(ref: ProviderRef, reason: FetchReason, force: boolean): Promise<FetchOutcome> {
    const em = this.#orm.em.fork();
    const attempts = await claimFetch(em, ref, this.#leaseMs, force);
    if (attempts === undefined) {
      if (!(await fetchRunningElsewhere(em, ref))) return 'waiting';
      // A refresh has nothing to wait for: the title is in the catalog already (waiting for it would
      // answer `stored` at once, before the other fetch stored anything), and the other instance's
      // fetch refreshes it.
      if (reason === 'refresh') return 'elsewhere';
      return this.#waitElsewhere(em, ref);
    }
    // A first use that looked for the title just before another fetch (here or on another instance)
    // stored it and let its claim go: it is there now, and fetching it again would be a second fetch.
    if (reason === 'first_use' && (await titleStored(em, ref))) {
      await releaseClaim(em, ref);
      return 'elsewhere';
    }
    const t0 = performance.now();
    const outcome = await this.#fetchClaimed(em, ref, attempts);
    catalogFetches.inc({ reason, outcome });
    catalogFetchDuration.observe({ reason, outcome }, (performance.now() - t0) / 1000);
    return outcome;
  }

  async #fetchClaimed(em: EntityManager, ref: ProviderRef, attempts: number): Promise<FetchState | 'stored'> {
    const notStored = async (state: FetchState, retryInMs: number, error: string | null) => {
      await settleNotStored(em, ref, state, retryInMs, error).catch((err: unknown) => this.#log.warn({ err, ...ref }, 'catalog fetch: could not record the outcome'));
      return state;
    };
    let title: ImportTitle | undefined;
    try {
      title = await this.#provider.title(ref);
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      if (err instanceof SourceAnswerError) {
        this.#log.warn({ ...ref, err: message }, 'catalog fetch: the provider answered with a title that does not fit: not stored');
        return notStored('invalid', DAY_MS, message);
      }
      this.#log.warn({ ...ref, attempts, err: message }, 'catalog fetch: the provider failed');
      return notStored('failed', Math.min(RETRY_FAILED_FROM_MS * 2 ** (attempts - 1), RETRY_FAILED_UP_TO_MS), message);
    }
    if (!title) return notStored('missing', DAY_MS, null);
    try {
      const result = await importSource(em, oneTitle(title));
      // The importer's own checks (a name, a year, numbers in range) refused it.
      if (result.titles === 0) {
        this.#log.warn({ ...ref }, 'catalog fetch: the provider answered with a title the catalog refuses: not stored');
        return notStored('invalid', DAY_MS, 'the catalog refused the title');
      }
      await settleStored(em, ref);
      return 'stored';
    } catch (err) {
      this.#log.warn({ ...ref, err }, 'catalog fetch: could not store the title');
      return notStored('failed', RETRY_FAILED_FROM_MS, 'could not store the title');
    }
  }

  /** Another instance holds the fetch: the title once it appears, or `elsewhere` when the claim ends first. */
  async #waitElsewhere(em: EntityManager, ref: ProviderRef): Promise<FetchOutcome> {
    const until = Date.now() + Math.min(this.#leaseMs, WAIT_ELSEWHERE_MS);
    while (!this.#closed && Date.now() < until) {
      if (await titleStored(em, ref)) return 'stored';
      if (!(await fetchRunningElsewhere(em, ref))) return 'elsewhere';
      await delay(POLL_ELSEWHERE_MS);
    }
    return 'elsewhere';
  }
}
