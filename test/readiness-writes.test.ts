// Readiness tells when the instance cannot write, on a real full disk. Embedded mode: the service runs
// as a child process with its data directory on a small tmpfs of this test's own; a filler file takes
// the last byte, writes fail, /readyz answers 503 with the reasons; the filler goes, /readyz is back to
// 200 by itself (no write needed) and writes work. Services mode: one table of the test's database is
// moved to a tablespace on a tmpfs, which is then filled: PostgreSQL refuses the inserts with SQLSTATE
// 53100 and readiness follows the same way.
import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FAILURE_HOLD_MS } from '../src/core/db/write-health.ts';
import { transaction } from '../src/core/db/transaction.ts';
import { DEDUP_WINDOW_MS } from '../src/core/library/history-write.ts';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { startChildServer, type ChildServer } from './helpers/child-server.ts';
import { servicesMode, type TestDatabase } from './helpers/db.ts';
import { call } from './helpers/http.ts';
import { scrapeMetrics, seriesValue } from './helpers/metrics.ts';
import { member, seedCatalog, SPIRITED_AWAY, type Member } from './helpers/seed.ts';
import { bulk } from './helpers/sync-client.ts';
import { fillFilesystem, mountTmpfs, treeBytes, type Tmpfs } from './helpers/tmpfs.ts';
import { until } from './helpers/wait.ts';

const METRICS_TOKEN = 'readiness-writes-metrics-token';
/** DATA_DIR_MIN_FREE_MB's default. */
const MIN_FREE_BYTES = 64 * 1024 * 1024;
/** Room for a loaded 2-core machine on top of the hold. */
const SLACK_MS = 15_000;

let watchedAt = Date.UTC(1990, 0, 1);
/** POST /sync/history with `n` new watches of one movie, each further apart than DEDUP_WINDOW_MS (none skipped). */
function writeWatches(target: { url: string }, token: string, n: number) {
  const items = Array.from({ length: n }, (_, i) => ({ client_item_id: `w${watchedAt}-${i}`, movie_db_id: SPIRITED_AWAY, watched_at: new Date((watchedAt += 2 * DEDUP_WINDOW_MS)).toISOString() }));
  return bulk(target, token, 'history', items);
}

async function readyz(target: { url: string }) {
  const { status, body } = await call(target, '/readyz');
  return { status, body };
}

/**
 * Writes batches until one fails: space already allocated to the tables (PostgreSQL extends a table by
 * several pages at a time) takes some writes before one needs more. Asserts the answer of the one that
 * fails: the API's temporary server failure (500 `server_error`), nothing more.
 */
async function writeUntilRefused(target: { url: string }, token: string) {
  let answer = await writeWatches(target, token, 100);
  let batch = 1;
  for (; answer.status === 200 && batch < 100; batch++) answer = await writeWatches(target, token, 100);
  expect(answer.status).toBe(500);
  expect(answer.body).toEqual({ error: 'server_error', message: expect.any(String), request_id: expect.stringMatching(/^req_/) });
  expect(JSON.stringify(answer.body)).not.toMatch(/No space|pg_wal|base\/|\.ts:/);
  return batch;
}

describe.skipIf(servicesMode)("embedded mode: the data directory's filesystem full", () => {
  let database: TestDatabase;
  let writer: Member;
  let tmpfs: Tmpfs | undefined;
  let mountError = '';
  let child: ChildServer | undefined;

  beforeAll(async () => {
    // Seeded in-process, then closed: the child process owns the database, copied onto the tmpfs.
    const app = await startTestApp();
    database = app.database;
    await seedCatalog(app, { shows: 1 });
    writer = await member(app, 'disk_writer', ['history:write', 'history:read']);
    await app.close();
    // The database, DATA_DIR_MIN_FREE_MB's 64 MiB and 64 MiB more: ready at first.
    const sizeMiB = Math.ceil(treeBytes(database.dataDir) / 1024 / 1024) + 128;
    const mounted = mountTmpfs(sizeMiB);
    if ('error' in mounted) {
      mountError = mounted.error;
      return;
    }
    tmpfs = mounted;
    const dataDir = path.join(tmpfs.dir, 'data');
    fs.cpSync(database.dataDir, dataDir, { recursive: true });
    child = await startChildServer({ databaseUrl: undefined, dataDir, cleanup: async () => {} }, { METRICS_TOKEN });
  });

  afterAll(async () => {
    // The child first: its database holds files on the tmpfs.
    await child?.kill();
    tmpfs?.unmount();
    await database?.cleanup();
  });

  it('answers 503 with the reasons while the disk is full, and 200 again by itself once it has room', async (ctx) => {
    if (!tmpfs) ctx.skip(`mount -t tmpfs is not permitted here (${mountError}): a full disk cannot be made`);
    const server = child!;
    expect(await readyz(server)).toEqual({ status: 200, body: { status: 'ready', database: 'ok', writes: 'ok' } });
    expect((await writeWatches(server, writer.token, 1)).body).toMatchObject({ inserted: 1 });

    const filler = fillFilesystem(tmpfs!.dir);
    const filledAt = Date.now();
    // The free space is read at each check: not ready before any write has failed.
    const full = await readyz(server);
    const detectedAfterMs = Date.now() - filledAt;
    expect(full).toEqual({
      status: 503,
      body: { status: 'unavailable', database: 'ok', writes: 'failing', reasons: ['low_disk_space'], message: "The data directory's filesystem has less than DATA_DIR_MIN_FREE_MB (64 MiB) free." },
    });

    const batches = await writeUntilRefused(server, writer.token);
    const failed = await readyz(server);
    expect(failed.status).toBe(503);
    expect(failed.body).toMatchObject({ status: 'unavailable', database: 'ok', writes: 'failing', reasons: ['low_disk_space', 'write_failed'] });
    expect(failed.body.message).toContain('(SQLSTATE 53100 disk_full)');
    const metrics = await scrapeMetrics(server.url, METRICS_TOKEN);
    expect(seriesValue(metrics, 'db_write_failures_total{sqlstate="53100"}')).toBeGreaterThanOrEqual(1);
    expect(seriesValue(metrics, 'data_dir_free_bytes')).toBeLessThan(MIN_FREE_BYTES);
    const lastFailureAt = Date.now();
    expect(server.logs.filter((l) => l.msg === `the database cannot write: /readyz answers 503 until no write has failed for ${FAILURE_HOLD_MS / 1000} s`)).toHaveLength(1);

    fs.rmSync(filler);
    // Room again: the space is back at once; the failed write holds readiness for FAILURE_HOLD_MS.
    const room = await readyz(server);
    expect(room.status).toBe(503);
    expect(room.body.reasons).toEqual(['write_failed']);
    await until('/readyz to answer 200 without any write', async () => (await readyz(server)).status === 200, FAILURE_HOLD_MS + SLACK_MS);
    const recoveredAfterMs = Date.now() - lastFailureAt;
    expect((await writeWatches(server, writer.token, 100)).body).toMatchObject({ inserted: 100 });
    ctx.annotate(`not ready ${detectedAfterMs} ms after the disk filled; refused at batch ${batches}; ready again ${recoveredAfterMs} ms after the last failed write`);
  });
});

describe.skipIf(!servicesMode)('services mode: PostgreSQL refusing writes for lack of space', () => {
  let app: TestApp;
  let writer: Member;
  let admin: pg.Client;
  let tmpfs: Tmpfs | undefined;
  let setupError = '';
  const tablespace = `mts_full_${process.pid}`;

  beforeAll(async () => {
    app = await startTestApp({ METRICS_TOKEN });
    await seedCatalog(app, { shows: 1 });
    writer = await member(app, 'disk_writer', ['history:write', 'history:read']);
    const mounted = mountTmpfs(8);
    if ('error' in mounted) {
      setupError = `mount -t tmpfs is not permitted here (${mounted.error})`;
      return;
    }
    tmpfs = mounted;
    // On the server's base database: the test's own is dropped with force at the end, before the tablespace.
    admin = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await admin.connect();
    try {
      // A tablespace's directory must belong to the server's own user, the owner of its data directory.
      const dir = path.join(tmpfs.dir, 'ts');
      fs.mkdirSync(dir);
      const { uid, gid } = fs.statSync((await admin.query<{ d: string }>(`select current_setting('data_directory') as d`)).rows[0]!.d);
      fs.chownSync(dir, uid, gid);
      await admin.query(`create tablespace ${tablespace} location '${dir}'`);
      const own = new pg.Client({ connectionString: app.database.databaseUrl });
      await own.connect();
      await own.query(`alter table watch_history set tablespace ${tablespace}`).finally(() => own.end());
    } catch (err) {
      setupError = `PostgreSQL cannot use a tablespace on this machine's tmpfs (${(err as Error).message})`;
    }
  });

  afterAll(async () => {
    // Dropping the test's database empties the tablespace, which can then go.
    await app?.stop();
    await admin?.query(`drop tablespace if exists ${tablespace}`).catch(() => {});
    await admin?.end();
    tmpfs?.unmount();
  });

  it('answers 503 write_failed after a write refused with 53100, and 200 again by itself once there is room', async (ctx) => {
    if (setupError) ctx.skip(setupError);
    expect(await readyz(app)).toEqual({ status: 200, body: { status: 'ready', database: 'ok', writes: 'ok' } });
    const filler = fillFilesystem(tmpfs!.dir);
    // PostgreSQL's own disk has room: reads and readiness are unaffected until a write fails.
    expect((await readyz(app)).status).toBe(200);
    const before = seriesValue(await scrapeMetrics(app.url, METRICS_TOKEN), 'db_write_failures_total{sqlstate="53100"}');
    const batches = await writeUntilRefused(app, writer.token);
    const failed = await readyz(app);
    expect(failed.status).toBe(503);
    expect(failed.body).toMatchObject({ status: 'unavailable', database: 'ok', writes: 'failing', reasons: ['write_failed'] });
    expect(failed.body.message).toContain('(SQLSTATE 53100 disk_full)');
    expect(seriesValue(await scrapeMetrics(app.url, METRICS_TOKEN), 'db_write_failures_total{sqlstate="53100"}') - before).toBeGreaterThanOrEqual(1);
    const lastFailureAt = Date.now();

    fs.rmSync(filler);
    await until('/readyz to answer 200 without any write', async () => (await readyz(app)).status === 200, FAILURE_HOLD_MS + SLACK_MS);
    ctx.annotate(`refused at batch ${batches}; ready again ${Date.now() - lastFailureAt} ms after the last failed write`);
    expect((await writeWatches(app, writer.token, 100)).body).toMatchObject({ inserted: 100 });
  });
});

describe('what counts as the database being unable to write', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp();
  });
  afterAll(() => app?.stop());

  it('not a statement refused for what it asked; a write refused as read-only (25006) does', async () => {
    const em = app.db.orm.em.fork();
    // A missing table, a broken constraint: a bug or bad data, not the state of the database.
    await expect(em.execute('select * from no_such_table')).rejects.toMatchObject({ code: '42P01' });
    await expect(em.execute('insert into app_user (id) values (null)')).rejects.toMatchObject({ code: '23502' });
    expect(await readyz(app)).toEqual({ status: 200, body: { status: 'ready', database: 'ok', writes: 'ok' } });
    // What a standby, or a primary set read-only, answers a write: the real error through the service's pool.
    await expect(
      transaction(em, async (tx) => {
        await tx.execute('set transaction read only');
        await tx.execute('create table read_only_probe (x int)');
      }),
    ).rejects.toMatchObject({ code: '25006' });
    const failing = await readyz(app);
    expect(failing.status).toBe(503);
    expect(failing.body).toMatchObject({ status: 'unavailable', database: 'ok', writes: 'failing', reasons: ['write_failed'] });
    expect(failing.body.message).toContain('(SQLSTATE 25006 read_only_sql_transaction)');
  });
});
