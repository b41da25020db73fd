// Ratings and favourites pages under load (services mode, 16 connections): GET /me/ratings (pages 1 to
// 10 of 50, and a type filter) and GET /me/favourites for a user with 5,000 history entries and 500
// ratings (the library benchmark's user), through the service and, as the baseline, the statements the
// service runs for each request (the bearer token's verification, then the page), named as the service
// names them, through a bare `pg` pool in the same run. Target (issue 5): p99 at most 25 ms; at least
// 0.5x the baseline.
import { openDatabase, migrate } from '../src/core/db/orm.ts';
import { query } from '../src/core/db/sql.ts';
import { offline } from '../src/core/db/compile.ts';
import { libraryPageQuery, pageWindow, type LibraryList, type PageFilters } from '../src/core/library/items-repository.ts';
import { seedUser } from './library.ts';
import { benchDatabaseUrl, type BareRequest, type Figures, formatRow, prepareCatalog, serviceVsBare, startService, tempDataDir } from './lib.ts';
import { atLeast, atMost, section, type Section } from './report.ts';
import { statementOf, tokenStatement } from './statements.ts';

const CONNECTIONS = 16;
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const PAGE_SIZE = 50;

type Case = { name: string; paths: string[]; statements: BareRequest[] };
type Seeded = Awaited<ReturnType<typeof seedUser>>;

function pages(seeded: Seeded, path: string, list: LibraryList, filters: PageFilters, count: number): { paths: string[]; statements: BareRequest[] } {
  const qs = new URLSearchParams(Object.entries(filters).filter(([, v]) => v !== undefined) as [string, string][]);
  const numbers = Array.from({ length: count }, (_, i) => i + 1);
  return {
    paths: numbers.map((page) => `/api/platform/v1${path}?${qs.toString() ? `${qs.toString()}&` : ''}page=${page}&pageSize=${PAGE_SIZE}`),
    statements: numbers.map((page) => [tokenStatement(seeded.token), statementOf(libraryPageQuery(offline, seeded.userId, list, filters, pageWindow(page, PAGE_SIZE)), true)]),
  };
}

export type RatingsBench = { titles: number; results: Array<{ case: string; service: Figures; bare: Figures; ratio: number }> };

export async function benchRatings(): Promise<RatingsBench> {
  const databaseUrl = benchDatabaseUrl();
  const titles = await prepareCatalog({ databaseUrl, dataDir: tempDataDir() });
  const db = await openDatabase({ databaseUrl, dataDir: '/nonexistent' });
  let seeded: Seeded;
  try {
    await migrate(db.orm);
    await query(db.orm.em.fork(), { text: `delete from app_user where username like 'bench\\_lib\\_%'`, params: [] });
    seeded = await seedUser(db, databaseUrl);
  } catch (err) {
    await db.close();
    throw err;
  }
  const cases: Case[] = [
    { name: 'GET /me/ratings pages 1-10', ...pages(seeded, '/me/ratings', 'ratings', {}, 10) },
    { name: 'GET /me/ratings?type=movie pages 1-5', ...pages(seeded, '/me/ratings', 'ratings', { type: 'movie' }, 5) },
    { name: 'GET /me/favourites page 1', ...pages(seeded, '/me/favourites', 'favourites', {}, 1) },
  ];
  const results: RatingsBench['results'] = [];
  const service = await startService({ DATABASE_URL: databaseUrl });
  try {
    results.push(...(await serviceVsBare(service.url, databaseUrl, seeded.token, cases, CONNECTIONS, SECONDS)));
  } finally {
    await service.stop();
    await query(db.orm.em.fork(), { text: 'delete from app_user where id = $1', params: [seeded.userId] });
    await db.close();
  }
  return { titles, results };
}

export function printRatings(b: RatingsBench): void {
  console.log(`\nratings and favourites (services mode, ${b.titles} titles; user with 500 ratings; ${CONNECTIONS} connections, ${SECONDS} s each)`);
  for (const r of b.results) {
    console.log(formatRow(`  ${r.case}: service`, r.service));
    console.log(formatRow(`  ${r.case}: same statements through bare pg`, r.bare));
    console.log(`  ${r.case}: service / bare throughput ratio ${r.ratio.toFixed(2)}`);
  }
}

export function ratingsSection(b: RatingsBench): Section {
  return section('Ratings and favourites (services mode)', `\`GET /me/ratings\` and \`GET /me/favourites\` (page envelope, ${PAGE_SIZE} per page) for the library benchmark's user (5,000 history entries, 500 ratings), ${CONNECTIONS} connections; baseline: the statements the service runs per request (bearer verification, then the page, named as the service names them) through bare \`pg\`.`, {
    measures: b.results.map((r) => ({ label: r.case, figures: r.service, baseline: { label: 'same statements, bare pg', figures: r.bare } })),
    targets: b.results.flatMap((r) => [atMost(5, `${r.case}: p99 at most 25 ms`, r.service.p99, 25), atLeast(5, `${r.case}: at least 0.5x the baseline`, r.ratio, 0.5)]),
  });
}

if (import.meta.main) printRatings(await benchRatings());
