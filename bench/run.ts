// `npm run bench`: every benchmark, one after the other (they share the machine), figures printed as
// they come and written to docs/performance.md with their baselines, the issues' targets, the machine
// and the service's peak memory. Services mode uses the PostgreSQL of BENCH_DATABASE_URL / DATABASE_URL
// (default the local `test` server) with a database of its own, `mts_bench`, kept between runs so the
// catalog is imported once, and the Redis of BENCH_REDIS_URL / REDIS_URL (default the local one). The
// living catalog's embedded mode keeps its imported catalog in .bench-data/living-catalog the same way.
//
// BENCH_SECONDS (default 10) sets each load run's length (after a 2 s warm-up); BENCH_ONLY=catalog,sync
// runs some benchmarks only (the document then says which ran); BENCH_REPORT sets where it is written.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { authSection, benchAuth, printAuth } from './auth.ts';
import { benchCatalog, catalogSection, printCatalog } from './catalog.ts';
import { benchCollection, collectionSection, printCollection } from './collection.ts';
import { benchGrowth, growthSection, printGrowth } from './growth.ts';
import { benchImport, importSection, printImport } from './import.ts';
import { benchLibrary, librarySection, printLibrary } from './library.ts';
import { benchLimits, limitsSection, printLimits } from './limits.ts';
import { benchLists, listsSection, printLists } from './lists.ts';
import { benchLivingCatalog, livingCatalogSection, printLivingCatalog } from './living-catalog.ts';
import { benchStartup, printStartup, startupSection } from './startup.ts';
import { benchSync, printSync, syncSection } from './sync.ts';
import { benchPlayback, playbackSection, printPlayback } from './playback.ts';
import { benchRatings, printRatings, ratingsSection } from './ratings.ts';
import { benchTrakt, printTrakt, traktSection } from './trakt.ts';
import { benchWebApp, printWebApp, webAppSection } from './web-app.ts';
import { benchWebhooks, printWebhooks, webhooksSection } from './webhooks.ts';
import { benchWriteCost, printWriteCost, writeCostSection } from './write-cost.ts';
import { benchDatabaseUrl, root, takeServicePeaks } from './lib.ts';
import { describeMachine, renderMarkdown, type Run, type Section } from './report.ts';

type Bench = { name: string; title: string; run(): Promise<Section> };

/** Each benchmark: measure, print the text figures, and turn them into the report's section. */
function bench<T>(name: string, title: string, measure: () => Promise<T>, print: (b: T) => void, toSection: (b: T) => Section): Bench {
  return {
    name,
    title,
    run: async () => {
      const b = await measure();
      print(b);
      return toSection(b);
    },
  };
}

const benches: Bench[] = [
  bench('startup', 'Start-up (embedded mode)', benchStartup, printStartup, startupSection),
  bench('catalog', 'Catalog (services mode)', () => benchCatalog('services'), printCatalog, catalogSection),
  bench('catalog-embedded', 'Catalog (embedded mode)', () => benchCatalog('embedded'), printCatalog, catalogSection),
  bench('auth', 'Bearer authentication', benchAuth, printAuth, authSection),
  bench('limits', 'Rate limiter', benchLimits, printLimits, limitsSection),
  bench('collection', 'Collection', benchCollection, printCollection, collectionSection),
  bench('library', 'Library', benchLibrary, printLibrary, librarySection),
  bench('ratings', 'Ratings and favourites', benchRatings, printRatings, ratingsSection),
  bench('trakt', 'Trakt-compatible API', benchTrakt, printTrakt, traktSection),
  bench('lists', 'Lists', benchLists, printLists, listsSection),
  bench('playback', 'Playback', benchPlayback, printPlayback, playbackSection),
  bench('webhooks', 'Webhook delivery', benchWebhooks, printWebhooks, webhooksSection),
  bench('sync', 'Sync', benchSync, printSync, syncSection),
  bench('import', 'Import', benchImport, printImport, importSection),
  bench('living-catalog', 'Living catalog', benchLivingCatalog, printLivingCatalog, livingCatalogSection),
  bench('growth', 'Growth', benchGrowth, printGrowth, growthSection),
  bench('writes', 'Write cost', benchWriteCost, printWriteCost, writeCostSection),
  bench('web', 'Web app', benchWebApp, printWebApp, webAppSection),
];

const only = process.env.BENCH_ONLY?.split(',').map((s) => s.trim()).filter(Boolean);
const unknown = only?.filter((n) => !benches.some((b) => b.name === n)) ?? [];
if (unknown.length) {
  process.stderr.write(`BENCH_ONLY: unknown benchmark(s) ${unknown.join(', ')}; known: ${benches.map((b) => b.name).join(', ')}\n`);
  process.exit(2);
}

const redisUrl = process.env.BENCH_REDIS_URL ?? process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const started = process.hrtime.bigint();
const machine = await describeMachine(benchDatabaseUrl(), redisUrl);
console.log(`machine: ${machine.cores} x ${machine.cpu}, ${machine.memoryGiB.toFixed(1)} GiB, Node ${machine.node}, PostgreSQL ${machine.postgres}, load ${machine.loadStart.map((l) => l.toFixed(2)).join(' ')}`);

const sections: Section[] = [];
const failures: Run['failures'] = [];
for (const b of benches) {
  if (only && !only.includes(b.name)) continue;
  const t = process.hrtime.bigint();
  takeServicePeaks();
  try {
    const s = await b.run();
    const peaks = takeServicePeaks();
    // A benchmark that took its peaks apart (start-up) set them itself.
    s.peakRssMiB ??= peaks.rssMiB;
    s.peakHeapUsedMiB ??= peaks.heapUsedMiB;
    s.seconds = Number(process.hrtime.bigint() - t) / 1e9;
    sections.push(s);
  } catch (err) {
    // One benchmark failing (a service that would not start, say) must not lose the others' figures.
    process.stderr.write(`benchmark ${b.name} failed: ${(err as Error).stack ?? String(err)}\n`);
    failures.push({ title: b.title, error: (err as Error).message });
  }
}
machine.loadEnd = os.loadavg();

const env: Record<string, string> = {};
for (const k of ['BENCH_ONLY', 'BENCH_IMPORT_ROWS', 'BENCH_SYNC_FEED_SIZES', 'BENCH_SSE_CLIENTS', 'BENCH_PLAYBACK_USERS', 'BENCH_CONNECTIONS', 'BENCH_SSE_EVENTS', 'BENCH_GROWTH_SIZES', 'BENCH_WEBHOOK_USERS', 'BENCH_WEBHOOK_RATE', 'BENCH_WEBHOOK_SECONDS', 'BENCH_WEBHOOK_BURST', 'BENCH_WRITES_MODES', 'BENCH_WRITES_USERS', 'BENCH_WRITES_OPS', 'BENCH_WRITES_CONNECTIONS', 'BENCH_CPU_PROF']) if (process.env[k]) env[k] = process.env[k]!;
const report = renderMarkdown({
  machine,
  sections,
  failures,
  totalSeconds: Number(process.hrtime.bigint() - started) / 1e9,
  benchSeconds: Number(process.env.BENCH_SECONDS ?? 10),
  env,
});
const file = path.resolve(root, process.env.BENCH_REPORT ?? 'docs/performance.md');
fs.writeFileSync(file, report);
console.log(`\nwrote ${path.relative(process.cwd(), file)} (${sections.length} benchmarks, ${failures.length} failed)`);
if (failures.length) process.exitCode = 1;
