// A server killed (kill -9) in the middle of a bulk write applies the whole batch or none of it, and
// the retry with the same Idempotency-Key applies it exactly once. The server runs as a child process
// (`node src/main.ts` as helpers/child-main.ts builds it) on this file's database; its sync hold makes the
// batch hold its transaction open after its writes, before the commit, and log "sync batch held open", so
// the kill lands there.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestApp } from './helpers/app.ts';
import { startChildServer, type ChildServer } from './helpers/child-server.ts';
import type { TestDatabase } from './helpers/db.ts';
import { member, platform, seedCatalog, SPIRITED_AWAY, type Member } from './helpers/seed.ts';
import { newKey } from './helpers/sync-client.ts';
import { until } from './helpers/wait.ts';

let database: TestDatabase;
let user: Member;

const call = (c: ChildServer, method: string, pathAndQuery: string, body?: unknown, headers: Record<string, string> = {}) => platform(c, user.token, method, pathAndQuery, body, headers);

async function historyChanges(c: ChildServer): Promise<number> {
  const res = await call(c, 'GET', '/me/sync/changes?resources=history&limit=1000');
  expect(res.status).toBe(200);
  return (res.body.changes as unknown[]).length;
}

beforeAll(async () => {
  // Migrate, seed and mint the token in-process, then free the database for the child processes.
  const app = await startTestApp();
  database = app.database;
  await seedCatalog(app, { shows: 1 });
  user = await member(app, 'crasher', ['history:write', 'history:read']);
  await app.close();
});
afterAll(() => database?.cleanup());

it('kill -9 in the middle of a batch leaves none of it, and the retry applies it once', async () => {
  const items = Array.from({ length: 100 }, (_, i) => ({ client_item_id: `c${i}`, movie_db_id: SPIRITED_AWAY, watched_at: new Date(Date.UTC(2023, 0, 1) + i * 86_400_000).toISOString() }));
  const key = newKey();

  const doomed = await startChildServer(database, {}, { syncHoldMs: 5000 });
  const answer = call(doomed, 'POST', '/sync/history', { items }, { 'idempotency-key': key }).catch((err: Error) => err);
  await until('the batch held open', () => doomed.logs.some((l) => l.msg === 'sync batch held open'), 60_000);
  await doomed.kill();
  expect(doomed.process.signalCode).toBe('SIGKILL');
  expect(await answer).toBeInstanceOf(Error);

  const server = await startChildServer(database);
  try {
    // The batch's writes were not committed: none of them is there.
    expect(await historyChanges(server)).toBe(0);
    // On PostgreSQL the killed server's transaction lives on until its backend notices the closed
    // connection (here: when the hold ends), still holding the key: 409 request_in_progress, and the
    // client retries the same key, as the Idempotency-Key parameter of the platform OpenAPI document says.
    let retry = await call(server, 'POST', '/sync/history', { items }, { 'idempotency-key': key });
    while (retry.status === 409 && retry.body.error === 'request_in_progress') {
      await new Promise((r) => setTimeout(r, 200));
      retry = await call(server, 'POST', '/sync/history', { items }, { 'idempotency-key': key });
    }
    expect(retry.status).toBe(200);
    expect(retry.body).toMatchObject({ inserted: 100, skipped: 0, idempotency_replayed: false });
    const again = await call(server, 'POST', '/sync/history', { items }, { 'idempotency-key': key });
    expect(again.body).toEqual({ ...retry.body, idempotency_replayed: true });
    // The feed shows changes once no older writing transaction is open on the server (other test
    // files share it), so wait for them rather than read once.
    await expect.poll(() => historyChanges(server), { timeout: 30_000 }).toBe(100);
  } finally {
    await server.stop();
  }
});
