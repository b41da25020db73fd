// GET /me/collection over a collection of 10,000 items (services mode, 16 connections): every page of the
// walk by nextCursor at the default limit (100) and at the maximum (200), with requests/s, p50 and p99
// through the whole service, and the same page statements through a bare `pg` pool as the baseline.
import { createUser } from '../src/core/accounts/service.ts';
import { createApp } from '../src/core/apps/service.ts';
import { collectionPageQuery } from '../src/core/collection/repository.ts';
import { offline } from '../src/core/db/compile.ts';
import { openDatabase, migrate, type Database } from '../src/core/db/orm.ts';
import { query, type Sql } from '../src/core/db/sql.ts';
import { bareBaseline, benchDatabaseUrl, type Figures, formatRow, loadPaths, prepareCatalog, startService, tempDataDir, tokenIssuer } from './lib.ts';
import { section, type Growth, type Section } from './report.ts';
import { statementOf } from './statements.ts';

const CONNECTIONS = 16;
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const ITEMS = 10_000;
const LIMITS = [100, 200];
/** The cost-growth run's smaller collection (a tenth), walked at the default limit. */
const SMALL = 1_000;
const GROWTH_LIMIT = 100;

export type CollectionBench = { items: number; results: Array<{ limit: number; pages: number; service: Figures; bare: Figures; ratio: number }>; growth: Growth[] };

/** A user owning `items` collection items (popular titles in every format) and a collection:read token. */
async function collector(databaseUrl: string, items: number): Promise<{ userId: string; token: string; cleanup(): Promise<void> }> {
  const db = await openDatabase({ databaseUrl, dataDir: '/nonexistent' });
  try {
    return await fill(db, databaseUrl, items);
  } finally {
    await db.close();
  }
}

async function fill(db: Database, databaseUrl: string, items: number): Promise<{ userId: string; token: string; cleanup(): Promise<void> }> {
  const em = db.orm.em.fork();
  await migrate(db.orm);
  const user = await createUser(em, { username: `coll_${Math.random().toString(36).slice(2, 8)}`, password: 'bench-password-1' });
  const app = await createApp(em, { name: 'Bench collection', redirectUris: ['http://127.0.0.1:1/cb'], scopes: ['collection:read'], confidential: false, official: false });
  const token = await (await tokenIssuer(db, databaseUrl))(user.id, app.client_id, 'collection:read');
  await query(em, {
    text: `insert into collection_item (user_id, title_id, format)
      select $1, t.id, f.format from (select id from title order by popularity desc, id limit $2) t
      cross join unnest(array['uhd_bluray', 'bluray', 'hd_dvd', 'dvd', 'digital', 'vhs', 'laserdisc']) as f(format)
      order by random() limit $3`,
    params: [user.id, Math.ceil(items / 7), items],
  });
  await query(em, { text: 'analyze collection_item', params: [] });
  return {
    userId: user.id,
    token,
    cleanup: async () => {
      const again = await openDatabase({ databaseUrl, dataDir: '/nonexistent' });
      await query(again.orm.em.fork(), { text: 'delete from app_user where id = $1', params: [user.id] });
      await again.close();
    },
  };
}

/** Every page's path of the walk by nextCursor, and each page's statement for the baseline. */
async function walk(url: string, token: string, userId: string, limit: number): Promise<{ paths: string[]; statements: Sql[] }> {
  const paths: string[] = [];
  const statements: Sql[] = [];
  let cursor: string | undefined;
  let after: number | null = null;
  do {
    const path = `/api/platform/v1/me/collection?limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`;
    const res = await fetch(`${url}${path}`, { headers: { authorization: `Bearer ${token}` } });
    if (!res.ok) throw new Error(`${path} answered ${res.status}`);
    const page = (await res.json()) as { items: { id: number }[]; nextCursor?: string };
    paths.push(path);
    // One more row than the limit: whether a next page exists (collectionPage).
    statements.push(statementOf(collectionPageQuery(offline, userId, undefined, after, limit + 1)));
    after = page.items.at(-1)?.id ?? null;
    cursor = page.nextCursor;
  } while (cursor);
  return { paths, statements };
}

export async function benchCollection(): Promise<CollectionBench> {
  const databaseUrl = benchDatabaseUrl();
  await prepareCatalog({ databaseUrl, dataDir: tempDataDir() });
  const who = await collector(databaseUrl, ITEMS);
  const few = await collector(databaseUrl, SMALL);
  const service = await startService({ DATABASE_URL: databaseUrl });
  try {
    const results: CollectionBench['results'] = [];
    for (const limit of LIMITS) {
      const { paths, statements } = await walk(service.url, who.token, who.userId, limit);
      await bareBaseline(databaseUrl, statements, CONNECTIONS, 2);
      const bare = await bareBaseline(databaseUrl, statements, CONNECTIONS, SECONDS);
      const measured = await loadPaths(service.url, who.token, paths, CONNECTIONS, SECONDS);
      results.push({ limit, pages: paths.length, service: measured, bare, ratio: measured.requestsPerSecond / bare.requestsPerSecond });
    }
    const small = await loadPaths(service.url, few.token, (await walk(service.url, few.token, few.userId, GROWTH_LIMIT)).paths, CONNECTIONS, SECONDS);
    const large = results.find((r) => r.limit === GROWTH_LIMIT)!.service;
    const growth: Growth[] = [{ endpoint: `GET /me/collection, limit ${GROWTH_LIMIT}, every page`, unit: 'req/s', small: { size: SMALL, figures: small }, large: { size: ITEMS, figures: large } }];
    return { items: ITEMS, results, growth };
  } finally {
    await service.stop();
    await who.cleanup();
    await few.cleanup();
  }
}

export function printCollection(b: CollectionBench): void {
  console.log(`\nGET /me/collection (services mode, ${b.items} items, every page of the walk, ${CONNECTIONS} connections, ${SECONDS} s each)`);
  for (const r of b.results) {
    console.log(formatRow(`  limit ${r.limit} (${r.pages} pages): service`, r.service));
    console.log(formatRow(`  limit ${r.limit}: same SQL through bare pg`, r.bare));
    console.log(`  limit ${r.limit}: service / bare throughput ratio ${r.ratio.toFixed(2)}`);
  }
  for (const g of b.growth) console.log(formatRow(`  ${g.endpoint} at ${g.small.size} items`, g.small.figures));
}

export function collectionSection(b: CollectionBench): Section {
  return section(
    'Collection (services mode)',
    `\`GET /me/collection\` over ${b.items.toLocaleString('en')} items: every page of the walk by nextCursor, ${CONNECTIONS} connections; baseline: the page statements through bare \`pg\`. Issue 6 asks for p50 and p99; it sets no target.`,
    {
      measures: b.results.map((r) => ({ label: `limit ${r.limit} (${r.pages} pages)`, figures: r.service, baseline: { label: 'same SQL, bare pg', figures: r.bare } })),
      growth: b.growth,
    },
  );
}

if (import.meta.main) printCollection(await benchCollection());
