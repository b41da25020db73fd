// Named statements in embedded mode (core/db/prepared.ts): the process that owns the database names
// them when asked (the server and the CLI ask, per DATABASE_PREPARED_STATEMENTS), its one connection
// dropping the names of an earlier one as it opens (PGlite keeps one session for every connection), and
// another process's client of the socket names nothing and drops nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../src/core/db/orm.ts';
import { query, type Sql } from '../src/core/db/sql.ts';
import { freshDatabase, servicesMode, type TestDatabase } from './helpers/db.ts';

let target: TestDatabase;
let db: Database;

beforeAll(async () => {
  if (servicesMode) return;
  target = await freshDatabase();
  db = await openDatabase({ databaseUrl: undefined, dataDir: target.dataDir, poolMax: 1, preparedStatements: true });
});

afterAll(async () => {
  await db?.close();
  await target?.cleanup();
});

const prepared = (text: string, params: unknown[] = []): Sql => ({ text, params, prepare: true });
const namedOnSession = (d: Database) => query<{ statement: string }>(d.orm.em.fork(), { text: 'select statement from pg_prepared_statements order by prepare_time', params: [] });

describe.runIf(!servicesMode)('named statements (embedded mode, asked for)', () => {
  const pool = () => db.orm.em.getConnection().getNativeClient();

  it("runs an opted-in statement as a named statement on the owning process's connection", async () => {
    expect(await query(db.orm.em.fork(), prepared('select $1::int * 2 as doubled', [4]))).toEqual([{ doubled: 8 }]);
    expect((await namedOnSession(db)).map((r) => r.statement)).toContain('select $1::int * 2 as doubled');
  });

  it("a new connection drops the names an earlier one parsed in PGlite's one session, and parses its own", async () => {
    const text = 'select $1::int * 4 as quadrupled';
    expect(await query(db.orm.em.fork(), prepared(text, [1]))).toEqual([{ quadrupled: 4 }]);
    // The pool's one connection closed (an idle timeout, a broken socket): the session keeps its names.
    const held = await (await pool()).connect();
    held.release(true);
    expect(await query(db.orm.em.fork(), prepared(text, [2]))).toEqual([{ quadrupled: 8 }]);
    expect((await namedOnSession(db)).filter((r) => r.statement === text)).toHaveLength(1);
  });

  it("another process's client (the CLI, through the door) sends statements unnamed and leaves the owner's names", async () => {
    const owner = 'select $1::int * 6 as owner_named';
    expect(await query(db.orm.em.fork(), prepared(owner, [1]))).toEqual([{ owner_named: 6 }]);
    const cli = await openDatabase({ databaseUrl: undefined, dataDir: target.dataDir, poolMax: 1, preparedStatements: true });
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
