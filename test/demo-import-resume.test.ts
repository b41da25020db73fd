// A first start killed (kill -9) during the demo catalog import: the next start finishes the import and
// says so, and the catalog ends exactly as an uninterrupted import leaves it (same titles, seasons,
// episodes, external ids and recommendations, none twice). Also the upgrade from a database made before
// the import recorded its steps: a partial catalog is finished (users' history kept), a complete one is
// left alone. The service runs as a child process (`node src/main.ts`) on a fresh embedded database;
// the test reads the database in-process between runs. Embedded mode only: the demo import is for the
// embedded database (services mode never runs it).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrationsList } from '../migrations/index.ts';
import { listHistory } from '../src/core/library/history-read.ts';
import { logTitleWatch } from '../src/core/library/history-log.ts';
import { openDatabase, type Database } from '../src/core/db/orm.ts';
import { createDemoAccount } from '../src/demo.ts';
import { spawnChild, startChild, waitForLog, type ChildServer, type LogLine } from './helpers/child-server.ts';
import { freePort } from './helpers/app.ts';
import { IMPORT_DEADLINE_MS } from './helpers/catalog.ts';
import { freshDatabase, servicesMode, type TestDatabase } from './helpers/db.ts';

const IMPORTING = 'importing demo catalog';
const FINISHING = 'finishing an interrupted demo catalog import';
const FINISHED = 'interrupted demo catalog import finished';
const ALL_STEPS = ['started', 'movies', 'anime', 'synthetic', 'recommendations', 'vacuum'];
/** Reverts the migration that added the record of the import's steps: the database as the code before it left it. */
async function revertStepsMigration(db: Database): Promise<string> {
  const name = migrationsList.find((m) => m.name.endsWith('_DemoImportSteps'))?.name;
  if (!name) throw new Error('no migration adds demo_import_step');
  await db.orm.migrator.down({ migrations: [name] });
  return name;
}

const databases: TestDatabase[] = [];
async function newDataDir(): Promise<string> {
  const database = await freshDatabase();
  databases.push(database);
  return database.dataDir;
}
afterAll(async () => {
  for (const d of databases) await d.cleanup();
});

/** The service on `dataDir` with the demo data on: spawned (to watch and kill), or started (once it listens). */
async function service(name: string, dataDir: string, until: 'spawned' | 'listening', demoData = 'auto'): Promise<ChildServer> {
  const port = await freePort();
  const env = { DATA_DIR: dataDir, DEMO_DATA: demoData, BASE_URL: `http://127.0.0.1:${port}`, RATE_LIMITS: 'off', TROPHY_INTERVAL_MS: '0' };
  return until === 'spawned' ? spawnChild(name, env, { port }) : startChild(name, env, { port, timeoutMs: IMPORT_DEADLINE_MS });
}

/** Kills `child` (SIGKILL) once it logs import progress that `at` accepts; fails if it listens first. */
async function killWhen(child: ChildServer, what: string, at: (line: LogLine) => boolean): Promise<void> {
  const progress = (l: LogLine) => {
    if (l.msg === 'listening') throw new Error(`${child.name} listened without logging ${what}: it imported nothing`);
    return l.msg === IMPORTING && at(l);
  };
  try {
    await waitForLog(child, what, progress, IMPORT_DEADLINE_MS);
  } finally {
    await child.kill();
  }
  expect(child.process.signalCode).toBe('SIGKILL');
}

const inMovies = (l: LogLine) => l.source === 'movies_dataset' && Number(l.done) >= 10_000;
const inAnime = (l: LogLine) => l.source === 'anime_data' && Number(l.done) > 0;

/** Runs `work` on the database in `dataDir` (no server may own it meanwhile). */
async function withDatabase<T>(dataDir: string, work: (db: Database) => Promise<T>): Promise<T> {
  const db = await openDatabase({ databaseUrl: undefined, dataDir });
  try {
    return await work(db);
  } finally {
    await db.close();
  }
}

async function one<T>(db: Database, query: string): Promise<T> {
  const [row] = await db.orm.em.getConnection().execute<T[]>(query);
  return row!;
}

/**
 * What the catalog holds: counts, the rows that share a key (always 0), and a digest of every table's
 * content in key order, ids left out (they depend on the order rows were first written), recommendations
 * by the keys of the titles they name.
 */
async function catalogSummary(db: Database) {
  const counts = await one<Record<string, number>>(
    db,
    `select
      (select count(*)::int from title) as titles,
      (select count(*)::int from title where category = 'movie') as movies,
      (select count(*)::int from title where category = 'anime') as anime,
      (select count(*)::int from title where category = 'show') as shows,
      (select count(*)::int from season) as seasons,
      (select count(*)::int from episode) as episodes,
      (select (sum((select count(*) from jsonb_object_keys(external_ids))) + count(film_db_id) + count(tv_db_id) + count(anime_db_id))::int from title) as external_ids,
      (select count(*)::int from title_recommendation) as recommendations,
      (select coalesce(sum(cardinality(recommended_ids)), 0)::int from title_recommendation) as recommended`,
  );
  const repeated = await one<Record<string, number>>(
    db,
    `select
      (select count(*) - count(distinct (type, movie_db_id)) from title)::int as titles,
      (select count(*) - count(distinct (title_id, season_number)) from season)::int as seasons,
      (select count(*) - count(distinct (title_id, season_number, episode_number)) from episode)::int as episodes`,
  );
  const digests = await one<Record<string, string>>(
    db,
    `select
      (select md5(string_agg(md5((to_jsonb(t) - 'id' - 'created_at' - 'updated_at')::text), '' order by t.type, t.movie_db_id)) from title t) as titles,
      (select md5(string_agg(md5(t.type || t.movie_db_id || (to_jsonb(s) - 'id' - 'title_id')::text), '' order by t.type, t.movie_db_id, s.season_number))
        from season s join title t on t.id = s.title_id) as seasons,
      (select md5(string_agg(md5(t.type || t.movie_db_id || (to_jsonb(e) - 'id' - 'title_id')::text), '' order by t.type, t.movie_db_id, e.season_number, e.episode_number))
        from episode e join title t on t.id = e.title_id) as episodes,
      (select md5(string_agg(t.type || t.movie_db_id || ':' || coalesce((
          select string_agg(x.type || x.movie_db_id, ',' order by o.n) from unnest(r.recommended_ids) with ordinality as o (id, n) join title x on x.id = o.id
        ), ''), ';' order by t.type, t.movie_db_id))
        from title_recommendation r join title t on t.id = r.title_id) as recommendations`,
  );
  return { counts, repeated, digests };
}

async function recordedSteps(db: Database): Promise<string[]> {
  const rows = await db.orm.em.getConnection().execute<Array<{ step: string }>>('select step from demo_import_step');
  return rows.map((r) => r.step).sort();
}

const demoLines = (child: ChildServer) => child.logs.filter((l) => String(l.msg).includes('demo'));

describe.skipIf(servicesMode)('a first start killed during the demo catalog import', () => {
  /** An uninterrupted first start's catalog, and its data directory (reused as an upgraded database). */
  let reference: Awaited<ReturnType<typeof catalogSummary>>;
  let referenceDir: string;

  beforeAll(async () => {
    referenceDir = await newDataDir();
    const clean = await service('clean first start', referenceDir, 'listening');
    await clean.stop();
    expect(clean.logs.some((l) => l.msg === 'demo catalog imported')).toBe(true);
    reference = await withDatabase(referenceDir, catalogSummary);
    expect(reference.repeated).toEqual({ titles: 0, seasons: 0, episodes: 0 });
    expect(reference.counts.titles).toBeGreaterThan(50_000);
    expect(reference.counts.recommendations).toBe(reference.counts.titles);
  }, 3 * IMPORT_DEADLINE_MS);

  it('is finished by the next start, and by the one after when that is killed too', async () => {
    const dataDir = await newDataDir();
    // Killed in the middle of the movies.
    await killWhen(await service('first start', dataDir, 'spawned'), 'movie progress', inMovies);

    // With the demo data off, a start imports nothing but says the catalog is partial.
    const off = await service('start with DEMO_DATA=off', dataDir, 'listening', 'off');
    await off.stop();
    expect(demoLines(off)).toEqual([
      expect.objectContaining({ level: 'warn', msg: expect.stringContaining('demo catalog import was interrupted'), steps: ['movies', 'anime', 'synthetic', 'recommendations', 'vacuum'] }),
    ]);

    // The next start says it finishes the import, redoes the movies; killed again in the anime.
    const second = await service('second start', dataDir, 'spawned');
    await killWhen(second, 'anime progress', inAnime);
    expect(second.logs.find((l) => l.msg === FINISHING)).toMatchObject({ steps: ['movies', 'anime', 'synthetic', 'recommendations', 'vacuum'] });

    // The third goes on from the anime (the movies were recorded) and finishes.
    const third = await service('third start', dataDir, 'listening');
    await third.stop();
    expect(third.logs.find((l) => l.msg === FINISHING)).toMatchObject({ level: 'info', steps: ['anime', 'synthetic', 'recommendations', 'vacuum'] });
    expect(third.logs.some((l) => l.msg === IMPORTING && l.source === 'anime_data')).toBe(true);
    expect(third.logs.some((l) => l.msg === IMPORTING && l.source === 'movies_dataset')).toBe(false);
    const finished = third.logs.find((l) => l.msg === FINISHED) as { results: Array<{ source: string }> } | undefined;
    expect(finished?.results.map((r) => r.source)).toEqual(['anime_data', 'synthetic']);
    expect(third.logs.some((l) => l.msg === 'demo user and app created')).toBe(true);

    await withDatabase(dataDir, async (db) => {
      expect(await catalogSummary(db)).toEqual(reference);
      expect(await recordedSteps(db)).toEqual([...ALL_STEPS].sort());
    });

    // A later start has nothing left to do and says nothing about it.
    const fourth = await service('fourth start', dataDir, 'listening');
    await fourth.stop();
    expect(demoLines(fourth)).toEqual([]);
  }, 3 * IMPORT_DEADLINE_MS);

  it('upgrading: a partial catalog from before the steps were recorded is finished, its users and history kept', async () => {
    const dataDir = await newDataDir();
    await killWhen(await service('first start', dataDir, 'spawned'), 'movie progress', inMovies);
    // The database as the earlier code left it: no record of steps; a later start of that code made the
    // demo account on the partial catalog, and its user watched a movie.
    const before = await withDatabase(dataDir, async (db) => {
      await revertStepsMigration(db);
      const em = db.orm.em.fork();
      const movie = await one<{ id: string; movie_db_id: number }>(db, `select id, movie_db_id from title where type = 'movie' order by id limit 1`);
      await createDemoAccount(em, 'http://localhost:3000', 'open');
      const demo = await one<{ user_id: string; client_id: string }>(db, `select (select id from app_user) as user_id, (select client_id from app) as client_id`);
      await logTitleWatch(em, demo.user_id, demo.client_id, { type: 'movie', movieDbId: movie.movie_db_id, watchedAt: new Date('2024-01-02T03:04:05Z') });
      return { movie, userId: demo.user_id, titles: (await catalogSummary(db)).counts.titles };
    });
    expect(before.titles).toBeGreaterThan(0);
    expect(before.titles).toBeLessThan(reference.counts.titles!);

    const next = await service('first start of this code', dataDir, 'listening');
    await next.stop();
    expect(next.logs.find((l) => l.msg === FINISHING)).toMatchObject({ steps: ['movies', 'anime', 'synthetic', 'recommendations', 'vacuum'] });
    expect(next.logs.some((l) => l.msg === FINISHED)).toBe(true);
    // The demo account was there already.
    expect(next.logs.some((l) => l.msg === 'demo user and app created')).toBe(false);

    await withDatabase(dataDir, async (db) => {
      expect(await catalogSummary(db)).toEqual(reference);
      expect(await recordedSteps(db)).toEqual([...ALL_STEPS].sort());
      // The watch still points at the same title, which is still that movie.
      expect(await one(db, `select t.id, t.movie_db_id from watch_history h join title t on t.id = h.title_id`)).toEqual(before.movie);
      const history = await listHistory(db.orm.em.fork(), before.userId, { limit: 10 });
      expect(history.items).toMatchObject([{ type: 'movie', movieDbId: before.movie.movie_db_id, watchedAt: '2024-01-02T03:04:05.000Z' }]);
    });
  }, 3 * IMPORT_DEADLINE_MS);

  it('upgrading: a complete catalog from before the steps were recorded is left alone', async () => {
    const migration = await withDatabase(referenceDir, async (db) => {
      // The uninterrupted first start recorded every step.
      expect(await recordedSteps(db)).toEqual([...ALL_STEPS].sort());
      return revertStepsMigration(db);
    });
    const upgraded = await service('first start of this code', referenceDir, 'listening');
    await upgraded.stop();
    expect(upgraded.logs.find((l) => l.msg === 'migrations applied')).toMatchObject({ applied: [migration] });
    expect(demoLines(upgraded)).toEqual([]);
    await withDatabase(referenceDir, async (db) => {
      expect(await recordedSteps(db)).toEqual([...ALL_STEPS].sort());
      expect(await catalogSummary(db)).toEqual(reference);
    });
  }, IMPORT_DEADLINE_MS);
});
