// The Trakt-compatible API against the platform API it stands on (services mode, 16 connections), for
// the library benchmark's user (5,000 history entries): the same data read both ways in the same run.
// - history: GET /trakt/sync/history?page=1&limit=50 against GET /me/history?limit=50 (the facade's
//   page by number, plus its batch id lookup, against the platform's cursor page);
// - a deep page: /trakt/sync/history?page=20&limit=50 (offset 950) against page 1;
// - title summary: GET /trakt/movies/{trakt id}?extended=full against GET /title/movie/{id} for 2,000
//   distinct movies each (no cache can hold them all).
// CPU per request is the service's and its PostgreSQL backends', read from /proc around each run.
import { openDatabase, migrate } from '../src/core/db/orm.ts';
import { query } from '../src/core/db/sql.ts';
import { seedUser } from './library.ts';
import { benchDatabaseUrl, cpuBetween, cpuMark, type Figures, formatRow, loadPaths, prepareCatalog, startService, tempDataDir } from './lib.ts';
import { section, type Section } from './report.ts';

const CONNECTIONS = 16;
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const TITLES = 2_000;

type Run = { figures: Figures; cpuMsPerRequest: number | null };
export type TraktBench = { titles: number; pairs: Array<{ case: string; trakt: Run; platform: Run }> };

export async function benchTrakt(): Promise<TraktBench> {
  const databaseUrl = benchDatabaseUrl();
  const titles = await prepareCatalog({ databaseUrl, dataDir: tempDataDir() });
  const db = await openDatabase({ databaseUrl, dataDir: '/nonexistent' });
  const pairs: TraktBench['pairs'] = [];
  let seeded: Awaited<ReturnType<typeof seedUser>> | undefined;
  try {
    await migrate(db.orm);
    await query(db.orm.em.fork(), { text: `delete from app_user where username like 'bench\\_lib\\_%'`, params: [] });
    seeded = await seedUser(db, databaseUrl);
    const movies = await query<{ id: string; movie_db_id: number }>(db.orm.em.fork(), {
      text: `select id, movie_db_id from title where type = 'movie' order by popularity desc, id limit $1`,
      params: [TITLES],
    });
    const service = await startService({ DATABASE_URL: databaseUrl });
    try {
      const key = { 'trakt-api-key': seeded.clientId, 'trakt-api-version': '2' };
      const measure = async (paths: string[], headers: Record<string, string> = {}): Promise<Run> => {
        const before = await cpuMark(db, service.child.pid);
        const figures = await loadPaths(service.url, seeded!.token, paths, CONNECTIONS, SECONDS, headers);
        const after = await cpuMark(db, service.child.pid);
        // The mark spans the 2 s warm-up too: counted at the measured run's rate.
        const requests = figures.requests + figures.requestsPerSecond * 2;
        const cpu = before && after ? cpuBetween(before, after) : null;
        return { figures, cpuMsPerRequest: cpu ? (cpu.server + cpu.backends) / requests : null };
      };
      const cases: Array<{ name: string; trakt: [string[], Record<string, string>]; platform: string[] }> = [
        { name: 'history, first page of 50', trakt: [['/trakt/sync/history?page=1&limit=50'], key], platform: ['/api/platform/v1/me/history?limit=50'] },
        { name: 'history, page 20 of 50 (offset 950) against the first page', trakt: [['/trakt/sync/history?page=20&limit=50'], key], platform: ['/api/platform/v1/me/history?limit=50'] },
        {
          name: `movie summary, ${TITLES} distinct movies (Trakt extended=full)`,
          trakt: [movies.map((m) => `/trakt/movies/${m.id}?extended=full`), key],
          platform: movies.map((m) => `/api/platform/v1/title/movie/${m.movie_db_id}`),
        },
      ];
      for (const c of cases) {
        const platform = await measure(c.platform);
        const trakt = await measure(...c.trakt);
        pairs.push({ case: c.name, trakt, platform });
      }
    } finally {
      await service.stop();
    }
  } finally {
    if (seeded) await query(db.orm.em.fork(), { text: 'delete from app_user where id = $1', params: [seeded.userId] });
    await db.close();
  }
  return { titles, pairs };
}

const cpu = (r: Run) => (r.cpuMsPerRequest === null ? 'n/a' : `${r.cpuMsPerRequest.toFixed(2)} ms CPU/req`);

export function printTrakt(b: TraktBench): void {
  console.log(`\nTrakt-compatible API against the platform API (services mode, ${b.titles} titles; ${CONNECTIONS} connections, ${SECONDS} s each)`);
  for (const p of b.pairs) {
    console.log(`${formatRow(`  ${p.case}: /trakt`, p.trakt.figures)}, ${cpu(p.trakt)}`);
    console.log(`${formatRow(`  ${p.case}: platform`, p.platform.figures)}, ${cpu(p.platform)}`);
    console.log(`  ${p.case}: trakt / platform throughput ${(p.trakt.figures.requestsPerSecond / p.platform.figures.requestsPerSecond).toFixed(2)}`);
  }
}

export function traktSection(b: TraktBench): Section {
  return section(
    'Trakt-compatible API (services mode)',
    `The library benchmark's user (5,000 history entries), ${CONNECTIONS} connections; each Trakt read against the platform read of the same data in the same run; CPU per request is the service's plus its PostgreSQL backends'.`,
    {
      measures: b.pairs.map((p) => ({ label: `${p.case} (/trakt)`, figures: p.trakt.figures, baseline: { label: 'platform API', figures: p.platform.figures } })),
      tables: [
        {
          caption: 'CPU per request (service + PostgreSQL), ms',
          header: ['case', '/trakt', 'platform', 'ratio'],
          rows: b.pairs.map((p) => [
            p.case,
            p.trakt.cpuMsPerRequest?.toFixed(2) ?? 'n/a',
            p.platform.cpuMsPerRequest?.toFixed(2) ?? 'n/a',
            p.trakt.cpuMsPerRequest && p.platform.cpuMsPerRequest ? (p.trakt.cpuMsPerRequest / p.platform.cpuMsPerRequest).toFixed(2) : 'n/a',
          ]),
        },
      ],
    },
  );
}

if (import.meta.main) printTrakt(await benchTrakt());
