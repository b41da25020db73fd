// Named statements (core/db/prepared.ts): the reads that opt in run as named statements in services
// mode and in the process that owns an embedded database, survive a migration that changes what they
// return, and are never named by another process's client of the embedded socket or when
// DATABASE_PREPARED_STATEMENTS is off.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate, openDatabase, type Database } from '../src/core/db/orm.ts';
import { statementName } from '../src/core/db/prepared.ts';
import { prepared as runPrepared, query, type Sql } from '../src/core/db/sql.ts';
import { db as typed } from '../src/core/db/query-builder.ts';
import { transaction } from '../src/core/db/transaction.ts';
import { freshDatabase, servicesMode, type TestDatabase } from './helpers/db.ts';

let target: TestDatabase;
let db: Database;
let unnamed: Database;

// One connection each, so the session that prepared a statement is the one asked about it.
beforeAll(async () => {
  target = await freshDatabase();
  db = await openDatabase({ databaseUrl: target.databaseUrl, dataDir: target.dataDir, poolMax: 1 });
  if (servicesMode) unnamed = await openDatabase({ databaseUrl: target.databaseUrl, dataDir: target.dataDir, poolMax: 1, preparedStatements: false });
});

afterAll(async () => {
  await unnamed?.close();
  await db?.close();
  await target?.cleanup();
});

const prepared = (text: string, params: unknown[] = []): Sql => ({ text, params, prepare: true });
const namedOnSession = (d: Database) => query<{ statement: string }>(d.orm.em.fork(), { text: 'select statement from pg_prepared_statements order by prepare_time', params: [] });

describe.runIf(servicesMode)('named statements (services mode)', () => {
  it('runs an opted-in statement as a named statement, with its own parameters each time, and others unnamed', async () => {
    const text = 'select $1::int * 2 as doubled';
    for (const n of [1, 2, 21]) expect(await query(db.orm.em.fork(), prepared(text, [n]))).toEqual([{ doubled: n * 2 }]);
    await query(db.orm.em.fork(), { text: 'select $1::int + 1 as plain', params: [1] });
    const statements = (await namedOnSession(db)).map((r) => r.statement);
    expect(statements).toContain(text);
    expect(statements).not.toContain('select $1::int + 1 as plain');
  });

  it('runs a typed query given to prepared() as a named statement; its rows are typed as execute() types them', async () => {
    await migrate(db.orm);
    const em = db.orm.em.fork();
    await typed(em).insertInto('oauth_key').values({ kind: 'probe', material: { a: 1 } }).execute();
    const q = typed(em).selectFrom('oauth_key').select(['kind', 'material', 'created_at']).where('kind', '=', 'probe');
    const [row] = await runPrepared(em, q);
    expect(row).toEqual({ kind: 'probe', material: { a: 1 }, created_at: expect.any(Date) });
    expect((await namedOnSession(db)).map((r) => r.statement)).toContain(q.compile().sql);
  });

  it('answers with the new columns after a migration changed them (the stale plan is renamed and retried)', async () => {
    const em = db.orm.em.fork();
    await query(em, { text: 'create table prepared_probe (a int)', params: [] });
    await query(em, { text: 'insert into prepared_probe values (1)', params: [] });
    const read = prepared('select * from prepared_probe where a = $1', [1]);
    expect(await query(em, read)).toEqual([{ a: 1 }]);
    await query(em, { text: 'alter table prepared_probe add column b text default $$x$$', params: [] });
    expect(await query(db.orm.em.fork(), read)).toEqual([{ a: 1, b: 'x' }]);
    // Two statements of that text were named on this session: the stale one and its successor.
    expect((await namedOnSession(db)).filter((r) => r.statement === read.text)).toHaveLength(2);
  });

  it('fails the transaction that met a stale plan once; the next read answers', async () => {
    const em = db.orm.em.fork();
    await query(em, { text: 'create table prepared_tx_probe (a int)', params: [] });
    await query(em, { text: 'insert into prepared_tx_probe values (7)', params: [] });
    const read = prepared('select * from prepared_tx_probe');
    expect(await query(em, read)).toEqual([{ a: 7 }]);
    await query(em, { text: 'alter table prepared_tx_probe add column b int default 8', params: [] });
    await expect(transaction(db.orm.em.fork(), (tx) => query(tx, read))).rejects.toMatchObject({ code: '0A000' });
    expect(await transaction(db.orm.em.fork(), (tx) => query(tx, read))).toEqual([{ a: 7, b: 8 }]);
  });

  it('sends texts unnamed once 1,000 distinct texts have names (a caller building texts without bound)', async () => {
    for (let i = 0; statementName(`select ${i} as filler`) !== undefined; i++) expect(i).toBeLessThan(1000);
    const text = 'select $1::int * 5 as past_the_cap';
    expect(await query(db.orm.em.fork(), prepared(text, [2]))).toEqual([{ past_the_cap: 10 }]);
    expect((await namedOnSession(db)).map((r) => r.statement)).not.toContain(text);
  });

  it('names nothing with DATABASE_PREPARED_STATEMENTS off', async () => {
    expect(await query(unnamed.orm.em.fork(), prepared('select $1::int * 3 as tripled', [2]))).toEqual([{ tripled: 6 }]);
    expect(await namedOnSession(unnamed)).toEqual([]);
  });
});

describe.runIf(!servicesMode)('named statements (embedded mode)', () => {
  const pool = () => db.orm.em.getConnection().getNativeClient();

  it('runs an opted-in statement as a named statement on the owning process\'s connection', async () => {
    expect(await query(db.orm.em.fork(), prepared('select $1::int * 2 as doubled', [4]))).toEqual([{ doubled: 8 }]);
    expect((await namedOnSession(db)).map((r) => r.statement)).toContain('select $1::int * 2 as doubled');
  });

  it('a new connection drops the names an earlier one parsed in PGlite\'s one session, and parses its own', async () => {
    const text = 'select $1::int * 4 as quadrupled';
    expect(await query(db.orm.em.fork(), prepared(text, [1]))).toEqual([{ quadrupled: 4 }]);
    // The pool's one connection closed (an idle timeout, a broken socket): the session keeps its names.
    const held = await (await pool()).connect();
    held.release(true);
    expect(await query(db.orm.em.fork(), prepared(text, [2]))).toEqual([{ quadrupled: 8 }]);
    expect((await namedOnSession(db)).filter((r) => r.statement === text)).toHaveLength(1);
  });

  it('another process\'s client (the CLI, through the door) sends statements unnamed and leaves the owner\'s names', async () => {
    const owner = 'select $1::int * 6 as owner_named';
    expect(await query(db.orm.em.fork(), prepared(owner, [1]))).toEqual([{ owner_named: 6 }]);
    const cli = await openDatabase({ databaseUrl: undefined, dataDir: target.dataDir, poolMax: 1 });
    try {
      expect(cli.embedded?.owner).toBe(false);
      expect(await query(cli.orm.em.fork(), prepared('select $1::int * 7 as cli_unnamed', [1]))).toEqual([{ cli_unnamed: 7 }]);
    } finally {
      await cli.close();
    }
    const statements = (await namedOnSession(db)).map((r) => r.statement);
    expect(statements).not.toContain('select $1::int * 7 as cli_unnamed');
    expect(statements).toContain(owner);
    expect(await query(db.orm.em.fork(), prepared(owner, [2]))).toEqual([{ owner_named: 12 }]);
  });
});
