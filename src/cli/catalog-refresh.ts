// `catalog:refresh [--ids movie:603,show:1396]`: the living catalog's refresh, now. With --ids, those
// titles are fetched from the movie database whether due or not, and whether in the catalog yet or not
// (a retry wait after a failure is skipped: the operator asked); without, refresh runs follow each other
// until no title people follow, watch or list is due (a title the provider fails on waits for its retry
// time, so the runs end). The fetcher is the service's own (startLivingCatalog), on the same Redis when
// REDIS_URL is set, so the CLI shares the provider's rate limit and each title's claim with the running
// instances. Progress on stderr as catalog:import shows it (a bar on a terminal, JSON lines on a pipe).
import { Redis } from 'ioredis';
import { startLivingCatalog } from '../core/catalog/fetch/start.ts';
import { fetchEach, refreshBacklog, refreshDue } from '../core/catalog/fetch/refresh.ts';
import type { FetchOutcome } from '../core/catalog/fetch/fetcher.ts';
import type { ProviderRef } from '../core/catalog/fetch/provider.ts';
import type { Logger } from '../core/log.ts';
import { parseIds } from './catalog-import.ts';
import { noPositionals, parseOptions, type Command } from './command.ts';
import { progressOn } from './progress.ts';

/** How long the command waits for Redis before it counts the rate limit in its own memory. */
const REDIS_WAIT_MS = 2_000;

async function connectRedis(url: string, log: Logger): Promise<Redis> {
  // As the service connects (server.ts): a command fails at once while Redis is away, and the rate
  // limit counts in memory until it answers.
  const redis = new Redis(url, { enableOfflineQueue: false, maxRetriesPerRequest: 1, retryStrategy: (n: number) => Math.min(200 * n, 2_000), commandTimeout: 250 });
  redis.on('error', (err: Error) => log.warn({ err: err.message }, 'catalog refresh: Redis'));
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([new Promise((resolve) => redis.once('ready', resolve)), new Promise((resolve) => (timer = setTimeout(resolve, REDIS_WAIT_MS)))]);
  clearTimeout(timer);
  return redis;
}

export const catalogRefreshCommand: Command = {
  summary: 'Refresh titles from the movie database now: the given ones, or every followed, watched or listed title that is due (needs MOVIE_DB_API_KEY)',
  options: [['--ids movie:ID,show:ID', 'these titles only, due or not, in the catalog yet or not']],
  example: 'catalog:refresh --ids show:1396,movie:603',
  usage: 'catalog:refresh [--ids movie:ID,show:ID]',
  async run(db, { config, log, argv }) {
    const { values, positionals } = parseOptions(argv, { ids: { type: 'string' } });
    noPositionals(positionals);
    const refs = values.ids === undefined ? undefined : parseIds(values.ids);
    if (!config.movieDbApiKey) throw new Error('MOVIE_DB_API_KEY is not set: the refresh asks the movie database, which needs an API key');

    const redis = config.redisUrl ? await connectRedis(config.redisUrl, log) : undefined;
    const living = startLivingCatalog(db.orm, config, log, redis)!;
    const progress = progressOn(process.stderr);
    const started = Date.now();
    try {
      let done = 0;
      if (refs) {
        const outcomes = new Map<ProviderRef, FetchOutcome>();
        progress.update(0, refs.length, 'refresh');
        const tally = await fetchEach(living.fetcher, refs, {
          force: true,
          onFetched: (ref, outcome) => {
            outcomes.set(ref, outcome);
            progress.update(++done, refs.length, 'refresh');
          },
        });
        // In the order given; `skipped` for a title not started (the fetcher was busy).
        const titles = refs.map((ref) => ({ ...ref, outcome: outcomes.get(ref) ?? 'skipped' }));
        return { ...tally, titles, seconds: Math.round((Date.now() - started) / 100) / 10 };
      }
      // The total grows if titles fall due while the command runs: the bar's total is what was due at the start.
      let total = await refreshBacklog(db.orm.em.fork());
      progress.update(0, total, 'refresh');
      const sum = { refreshed: 0, missing: 0, invalid: 0, failed: 0, skipped: 0, backlog: total };
      for (;;) {
        const run = await refreshDue(db.orm.em.fork(), living.fetcher, {
          batch: config.catalogRefreshBatch,
          onFetched: () => {
            total = Math.max(total, ++done);
            progress.update(done, total, 'refresh');
          },
        });
        sum.refreshed += run.refreshed;
        sum.missing += run.missing;
        sum.invalid += run.invalid;
        sum.failed += run.failed;
        sum.skipped += run.skipped;
        sum.backlog = run.backlog;
        // Every title a run settles (refreshed, or waiting for its retry) leaves the due ones; a run that
        // settled none (nothing due, or the fetcher busy with other instances' claims) ends the command.
        if (run.refreshed + run.missing + run.invalid + run.failed === 0 || run.backlog === 0) break;
      }
      return { ...sum, seconds: Math.round((Date.now() - started) / 100) / 10 };
    } finally {
      progress.stop();
      await living.close();
      redis?.disconnect();
    }
  },
};
