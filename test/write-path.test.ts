// The pieces a write is built from: advisory locks taken once per transaction and several in one
// statement (core/db/advisory-lock.ts); the nudge after a commit that wrote changes (core/changes/
// written.ts), which the webhook deliverer acts on; and, in services mode, data statements named once
// their text recurs (core/db/prepared.ts), so PostgreSQL parses and plans them once per connection.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser } from '../src/core/accounts/service.ts';
import { recordChanges } from '../src/core/changes/record.ts';
import { onChangesCommitted } from '../src/core/changes/written.ts';
import { holdLocks } from '../src/core/db/advisory-lock.ts';
import { admissionHasRoom } from '../src/core/db/prepared.ts';
import { migrate, openDatabase, type Database } from '../src/core/db/orm.ts';
import { query } from '../src/core/db/sql.ts';
import { transaction } from '../src/core/db/transaction.ts';
import { freshDatabase, servicesMode, type TestDatabase } from './helpers/db.ts';

let target: TestDatabase;
let db: Database;
let userId: string;

beforeAll(async () => {
  target = await freshDatabase();
  db = await openDatabase({ databaseUrl: target.databaseUrl, dataDir: target.dataDir });
  await migrate(db.orm);
  userId = (await createUser(db.orm.em.fork(), { username: 'writer', password: 'correct horse' })).id;
});

afterAll(async () => {
  await db?.close();
  await target?.cleanup();
});

const em = () => db.orm.em.fork();
const advisoryLocksHeld = (tx: Parameters<typeof query>[0]) =>
  query<{ n: number }>(tx, { text: `select count(*)::int as n from pg_locks where locktype = 'advisory' and pid = pg_backend_pid()`, params: [] });

describe('advisory locks', () => {
  it('takes several locks in one statement, and a lock the transaction holds is not asked for again', async () => {
    await transaction(em(), async (tx) => {
      await holdLocks(tx, ['write-path:a', 'write-path:b']);
      expect((await advisoryLocksHeld(tx))[0]!.n).toBe(2);
      // Held already: no statement is sent, and nothing changes.
      await holdLocks(tx, ['write-path:a']);
      await holdLocks(tx, ['write-path:b', 'write-path:a']);
      expect((await advisoryLocksHeld(tx))[0]!.n).toBe(2);
      await holdLocks(tx, ['write-path:a', 'write-path:c']);
      expect((await advisoryLocksHeld(tx))[0]!.n).toBe(3);
    });
    // Released with the transaction; a new one takes them afresh.
    await transaction(em(), async (tx) => {
      expect((await advisoryLocksHeld(tx))[0]!.n).toBe(0);
      await holdLocks(tx, ['write-path:a']);
      expect((await advisoryLocksHeld(tx))[0]!.n).toBe(1);
    });
  });

  it.runIf(servicesMode)('keeps another session out until the holder commits', async () => {
    const other = await openDatabase({ databaseUrl: target.databaseUrl, dataDir: target.dataDir, poolMax: 1 });
    try {
      await transaction(em(), async (tx) => {
        await holdLocks(tx, ['write-path:held']);
        const [r] = await query<{ got: boolean }>(other.orm.em.fork(), { text: `select pg_try_advisory_lock(hashtextextended('write-path:held', 0)) as got`, params: [] });
        expect(r!.got).toBe(false);
      });
      const [r] = await query<{ got: boolean }>(other.orm.em.fork(), { text: `select pg_try_advisory_xact_lock(hashtextextended('write-path:held', 0)) as got`, params: [] });
      expect(r!.got).toBe(true);
    } finally {
      await other.close();
    }
  });
});

describe('the nudge after changes commit', () => {
  it('comes once per committed transaction that wrote changes, however many writes, after the commit, and not for one rolled back', async () => {
    let nudges = 0;
    const stop = onChangesCommitted(() => {
      nudges++;
    });
    try {
      await transaction(em(), async (tx) => {
        await recordChanges(tx, userId, [{ resource: 'history', resourceId: 1, op: 'delete', data: null }]);
        await recordChanges(tx, userId, [{ resource: 'history', resourceId: 2, op: 'delete', data: null }]);
        expect(nudges).toBe(0);
      });
      // Two writes of one transaction: one nudge, after its commit.
      expect(nudges).toBe(1);
      expect((await query<{ n: number }>(em(), { text: `select count(*)::int as n from change_log where user_id = $1 and resource_id in ('1', '2')`, params: [userId] }))[0]!.n).toBe(2);

      await expect(
        transaction(em(), async (tx) => {
          await recordChanges(tx, userId, [{ resource: 'history', resourceId: 3, op: 'delete', data: null }]);
          throw new Error('rolled back');
        }),
      ).rejects.toThrow('rolled back');
      expect(nudges).toBe(1);

      // Outside a transaction the statement has committed when it returns: the nudge comes at once.
      await recordChanges(em(), userId, [{ resource: 'history', resourceId: 4, op: 'delete', data: null }]);
      expect(nudges).toBe(2);
    } finally {
      stop();
    }
    await recordChanges(em(), userId, [{ resource: 'history', resourceId: 5, op: 'delete', data: null }]);
    expect(nudges).toBe(2);
  });
});

const namedOnSession = (d: Database) => query<{ statement: string }>(d.orm.em.fork(), { text: 'select statement from pg_prepared_statements', params: [] });

describe.runIf(servicesMode)('data statements named once they recur (services mode)', () => {
  let one: Database;
  beforeAll(async () => {
    // One connection, so the session that prepared a statement is the one asked about it.
    one = await openDatabase({ databaseUrl: target.databaseUrl, dataDir: target.dataDir, poolMax: 1 });
  });
  afterAll(async () => {
    await one?.close();
  });

  // The caps are the process's: files run before this one in the same worker may have filled them, and
  // then a recurring text stays unnamed (the cap's rule) instead.
  it('sends a data statement unnamed twice and named from the third time (unnamed when the caps are full), with its own values each time', async () => {
    const room = admissionHasRoom();
    const text = 'select $1::int * 7 as sevenfold';
    for (const n of [1, 2]) expect(await query(one.orm.em.fork(), { text, params: [n] })).toEqual([{ sevenfold: n * 7 }]);
    expect((await namedOnSession(one)).map((r) => r.statement)).not.toContain(text);
    for (const n of [3, 4]) expect(await query(one.orm.em.fork(), { text, params: [n] })).toEqual([{ sevenfold: n * 7 }]);
    expect((await namedOnSession(one)).filter((r) => r.statement === text)).toHaveLength(room ? 1 : 0);
  });

  it('never names what is not a data statement', async () => {
    for (let i = 0; i < 4; i++) await query(one.orm.em.fork(), { text: 'show timezone', params: [] });
    expect((await namedOnSession(one)).map((r) => r.statement)).not.toContain('show timezone');
  });

  it('parses a named statement afresh after a migration changed what it reads: one failure, then the new columns', async () => {
    const e = one.orm.em.fork();
    await query(e, { text: 'create table admitted_probe (a int)', params: [] });
    await query(e, { text: 'insert into admitted_probe values (1)', params: [] });
    const room = admissionHasRoom();
    const read = { text: 'select * from admitted_probe where a = $1', params: [1] };
    for (let i = 0; i < 3; i++) expect(await query(e, read)).toEqual([{ a: 1 }]);
    await query(e, { text: `alter table admitted_probe add column b text default 'x'`, params: [] });
    if (room) {
      expect((await namedOnSession(one)).map((r) => r.statement)).toContain(read.text);
      await expect(query(e, read)).rejects.toMatchObject({ code: '0A000' });
    }
    expect(await query(e, read)).toEqual([{ a: 1, b: 'x' }]);
  });
});
