// A streamed export that fails midway is cut, never finished: the client must not take a truncated
// document for a complete one. Services mode: the collection table is locked by another session, so the
// export's stream stops at its collection page after history, ratings and lists went out; that page's
// query is then ended by the server (its backend terminated), and the response must end in a broken
// connection, not in a closing brace. The service then exports normally.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { servicesMode } from './helpers/db.ts';
import { addSpecial, exporter, exportOf, seedLibrary } from './helpers/export-seed.ts';
import { seedCatalog, type Member } from './helpers/seed.ts';
import { until } from './helpers/wait.ts';

let app: TestApp;
let alice: Member;

beforeAll(async () => {
  if (!servicesMode) return;
  app = await startTestApp();
  await seedCatalog(app, { shows: 3 });
  await addSpecial(app);
  alice = await exporter(app, 'alice_cut');
  await seedLibrary(app, alice);
});
afterAll(() => app?.stop());

/** The backend of the app's pool waiting for a lock (the export's blocked page), once it waits. */
async function blockedBackend(c: pg.Client, database: string): Promise<number> {
  let pid: number | undefined;
  await until('an export query waiting for the lock', async () => {
    const { rows } = await c.query<{ pid: number }>(
      `select pid from pg_stat_activity where datname = $1 and wait_event_type = 'Lock' and pid <> pg_backend_pid()`,
      [database],
    );
    pid = rows[0]?.pid;
    return pid !== undefined;
  }, 30_000, 50);
  return pid!;
}

/** Reads the body to its end: the text received, and the error that ended it, if one did. */
async function readAll(res: Response): Promise<{ text: string; error: Error | null }> {
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let text = '';
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return { text, error: null };
      text += decoder.decode(value, { stream: true });
    }
  } catch (err) {
    return { text, error: err as Error };
  }
}

describe.skipIf(!servicesMode)('an export that fails midway', () => {
  it('is cut: the client gets a broken connection after what went out, never a closing brace; the next export is whole', async () => {
    const database = new URL(app.database.databaseUrl!).pathname.slice(1);
    const locker = new pg.Client({ connectionString: app.database.databaseUrl });
    await locker.connect();
    try {
      await locker.query('begin');
      await locker.query('lock table collection_item in access exclusive mode');
      const res = await fetch(`${app.url}/api/platform/v1/me/export`, { headers: { authorization: `Bearer ${alice.token}` } });
      expect(res.status).toBe(200);
      const body = readAll(res);
      const watcher = new pg.Client({ connectionString: app.database.databaseUrl });
      await watcher.connect();
      try {
        const pid = await blockedBackend(watcher, database);
        await watcher.query('select pg_terminate_backend($1)', [pid]);
      } finally {
        await watcher.end();
      }
      const { text, error } = await body;
      expect(error).not.toBeNull();
      // What went out before the failure did: the head and the arrays before the collection.
      expect(text).toMatch(/^\{"format":"media-tracker-export"/);
      expect(text).toContain('"history":[');
      expect(text).not.toContain('"continue_watching"');
      expect(() => JSON.parse(text)).toThrow();
    } finally {
      await locker.query('rollback').catch(() => undefined);
      await locker.end();
    }
    const whole = await exportOf(app, alice.token);
    expect(whole.status).toBe(200);
    expect((whole.body.collection as unknown[]).length).toBe(2);
  });
});
