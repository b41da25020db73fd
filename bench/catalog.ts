// Catalog search and discover over the demo catalog (over 40,000 titles) at 16 concurrent connections:
// requests/s, p50 and p99 through the whole service (HTTP, pipeline, facade, ORM), and the same SQL
// through a bare `pg` pool in the same run as the baseline. The service runs twice: as deployed (answers
// cached for CATALOG_CACHE_SECONDS; the query set repeats, so this is the warm-cache figure) and with
// the cache off (every request runs its SQL), which is the one to compare with the bare baseline.
// Targets (services mode): search p99 at most 20 ms; facade throughput at least half the bare baseline's.
import { OWN_CLIENT } from '../src/core/db/embedded-guard.ts';
import fs from 'node:fs';
import autocannon from 'autocannon';
import { discoverQuery, looseWordSimilarity, searchQuery } from '../src/core/catalog/repository.ts';
import { offline } from '../src/core/db/compile.ts';
import type { Sql } from '../src/core/db/sql.ts';
import { discoverInput, searchInput, type SearchInput } from '../src/core/catalog/schemas.ts';
import pg from 'pg';
import { bareBaseline, bareConnection, type BareRequest, benchDatabaseUrl, formatRow, prepareCatalog, startService, tempDataDir, type Figures } from './lib.ts';
import { atLeast, atMost, section, type Section, type Target } from './report.ts';
import { statementOf } from './statements.ts';

const CONNECTIONS = 16;
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);

// Real searches people type, with typos and partial names. One that finds nothing is retried looser by
// the service (a typo in every word, "spirted awey"); its baseline runs the retry too (withRetries),
// in services mode.
const SEARCHES = ['spirited away', 'the matrix', 'spirted away', 'spirted awey', 'godfater', 'ghost in the shell', 'star wars', 'toy story', 'the godfather', 'alien',
  'lord of the rings', 'harry poter', 'batman', 'amelie', 'naruto', 'cowboy bebop', 'inception', 'pulp fiction', 'the dark knight', 'totoro',
  'jurassic park', 'titanic'];
const DISCOVERS = ['type=movie', 'type=movie&genre=Comedy&yearFrom=1990&yearTo=1999', 'category=anime&sort=rating', 'type=show&sort=release_date',
  'language=fr&minRating=7', 'type=movie&genre=Horror&sort=rating&limit=50', 'category=movie&yearFrom=2010&sort=name'];

type Case = { name: string; paths: string[]; statements: BareRequest[] };

const searchStatement = (input: SearchInput): Sql => statementOf(searchQuery(offline, input));
/** What the service runs when a search found nothing (searchItems): the search again, looser, in a transaction. */
const searchRetryStatements = (input: SearchInput): Sql[] => [
  { text: 'begin', params: [] },
  statementOf(looseWordSimilarity(offline)),
  searchStatement(input),
  { text: 'commit', params: [] },
];

const cases: Case[] = [
  {
    name: 'search',
    paths: SEARCHES.map((q) => `/api/public/v1/catalog/search?q=${encodeURIComponent(q)}`),
    statements: SEARCHES.map((q) => searchStatement(searchInput.parse({ q }))),
  },
  {
    name: 'discover',
    paths: DISCOVERS.map((p) => `/api/public/v1/catalog/discover?${p}`),
    // The schema takes numbers as a caller writes them (the REST facade reads the query text into numbers).
    statements: DISCOVERS.map((p) => statementOf(discoverQuery(offline, discoverInput.parse(Object.fromEntries([...new URLSearchParams(p)].map(([k, v]) => [k, /^\d+$/.test(v) ? Number(v) : v])))))),
  },
];

/** The search statements, each followed by the service's retry where it finds nothing. */
async function withRetries(target: string | { host: string; port: number }, statements: BareRequest[]): Promise<BareRequest[]> {
  const client = new pg.Client(bareConnection(target));
  await client.connect();
  try {
    const out: BareRequest[] = [];
    for (const [i, st] of statements.entries()) {
      const one = st as Sql;
      const found = (await client.query({ text: one.text, values: one.params })).rowCount;
      out.push(found ? one : [one, ...searchRetryStatements(searchInput.parse({ q: SEARCHES[i]! }))]);
    }
    return out;
  } finally {
    await client.end();
  }
}

async function throughService(url: string, paths: string[]): Promise<Figures> {
  // A short warm-up first, so both sides are measured with warm caches.
  await autocannon({ url, connections: CONNECTIONS, duration: 2, requests: paths.map((path) => ({ method: 'GET', path })) });
  const r = await autocannon({ url, connections: CONNECTIONS, duration: SECONDS, requests: paths.map((path) => ({ method: 'GET', path })) });
  if (r.non2xx || r.errors) throw new Error(`service answered ${r.non2xx} non-2xx and ${r.errors} errors`);
  return { requestsPerSecond: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, requests: r.requests.total };
}

export type CatalogBench = {
  mode: string;
  titles: number;
  results: Array<{ case: string; cached: Figures; uncached: Figures; bare: Figures; ratio: number }>;
};

export async function benchCatalog(mode: 'services' | 'embedded'): Promise<CatalogBench> {
  const dataDir = tempDataDir();
  try {
    return await measureCatalog(mode, dataDir);
  } finally {
    // The embedded database of the run (a few hundred MB): imported afresh each run.
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

async function measureCatalog(mode: 'services' | 'embedded', dataDir: string): Promise<CatalogBench> {
  const databaseUrl = mode === 'services' ? benchDatabaseUrl() : undefined;
  const titles = await prepareCatalog({ databaseUrl, dataDir });
  // Embedded: DATABASE_URL emptied (empty counts as unset), or the child would inherit the caller's.
  const where: Record<string, string> = databaseUrl ? { DATABASE_URL: databaseUrl } : { DATA_DIR: dataDir, DATABASE_URL: '' };
  // The embedded socket admits this project's own client name only while the service runs.
  const bareTarget = databaseUrl ?? { host: dataDir, port: 5432, application_name: OWN_CLIENT };
  const measured = new Map<string, { cached?: Figures; uncached?: Figures; bare?: Figures }>();
  const record = (name: string, key: 'cached' | 'uncached' | 'bare', f: Figures) => measured.set(name, { ...measured.get(name), [key]: f });

  // One service at a time (an embedded database has one owner): uncached with the bare baseline beside it.
  let service = await startService({ ...where, CATALOG_CACHE_SECONDS: '0' });
  try {
    for (const c of cases) {
      // Embedded: without the retries. Sixteen bare clients interleaving transactions make PGlite's socket
      // server drop connections (the service's own concurrent retries run there without an error).
      const statements = c.name === 'search' && mode === 'services' ? await withRetries(bareTarget, c.statements) : c.statements;
      await bareBaseline(bareTarget, statements, CONNECTIONS, 2);
      record(c.name, 'bare', await bareBaseline(bareTarget, statements, CONNECTIONS, SECONDS));
      record(c.name, 'uncached', await throughService(service.url, c.paths));
    }
  } finally {
    await service.stop();
  }
  service = await startService(where);
  try {
    for (const c of cases) record(c.name, 'cached', await throughService(service.url, c.paths));
  } finally {
    await service.stop();
  }
  const results = cases.map((c) => {
    const m = measured.get(c.name)!;
    return { case: c.name, cached: m.cached!, uncached: m.uncached!, bare: m.bare!, ratio: m.uncached!.requestsPerSecond / m.bare!.requestsPerSecond };
  });
  return { mode, titles, results };
}

export function printCatalog(b: CatalogBench): void {
  console.log(`\ncatalog (${b.mode} mode, ${b.titles} titles, ${CONNECTIONS} connections, ${SECONDS} s each)`);
  for (const r of b.results) {
    console.log(formatRow(`  ${r.case}: service, answers cached`, r.cached));
    console.log(formatRow(`  ${r.case}: service, cache off`, r.uncached));
    console.log(formatRow(`  ${r.case}: same SQL through bare pg`, r.bare));
    console.log(`  ${r.case}: service (cache off) / bare throughput ratio ${r.ratio.toFixed(2)}`);
  }
}

export function catalogSection(b: CatalogBench): Section {
  const targets: Target[] = [];
  if (b.mode === 'services') {
    const search = b.results.find((r) => r.case === 'search');
    if (search) targets.push(atMost(2, 'search p99 at most 20 ms (answers cached, as deployed)', search.cached.p99, 20));
    if (search) targets.push(atMost(2, 'search p99 at most 20 ms, cache off (every request runs its SQL)', search.uncached.p99, 20));
    if (search) targets.push(atMost(19, 'search p99 at most 40 ms, cache off, typo searches included', search.uncached.p99, 40));
    for (const r of b.results) targets.push(atLeast(2, `${r.case}: service throughput at least 0.5x the bare baseline (cache off)`, r.ratio, 0.5));
  }
  return section(`Catalog (${b.mode} mode)`, `Catalog search and discover over ${b.titles.toLocaleString('en')} titles, ${CONNECTIONS} connections, public API (no token). The service runs with its answer cache (\`CATALOG_CACHE_SECONDS\` default, warm) and with it off; the baseline is the same SQL through bare \`pg\`.`, {
    measures: b.results.flatMap((r) => [
      { label: `${r.case}, answers cached`, figures: r.cached },
      { label: `${r.case}, cache off`, figures: r.uncached, baseline: { label: 'same SQL, bare pg', figures: r.bare } },
    ]),
    targets,
  });
}

if (import.meta.main) {
  for (const mode of (process.argv[2] ?? 'services,embedded').split(',') as Array<'services' | 'embedded'>) printCatalog(await benchCatalog(mode));
}
