// Running statements on an EntityManager's connection (inside its transaction when it has one).
// `prepared(em, q)`: a typed query as a named statement, for the hottest reads. `query(em, sql)`: a
// statement given as text and bound parameters, for tests and tools that hold SQL text (the service's
// own statements are typed queries in the modules' repositories).
import type { EntityManager } from '@mikro-orm/postgresql';
import { CompiledQuery, type Compilable } from 'kysely';
import { db } from './query-builder.ts';
import { isStalePlan, renewStatement, statementName } from './prepared.ts';

/**
 * A statement and its parameters. `prepare`: run it as a named statement where the pool names them
 * (prepared.ts); only for texts built from a small, fixed set of templates.
 */
export type Sql = { text: string; params: unknown[]; prepare?: boolean };

export async function query<T>(em: EntityManager, sql: Sql): Promise<T[]> {
  if (sql.prepare) statementName(sql.text);
  try {
    return await run<T>(em, sql);
  } catch (err) {
    if (!sql.prepare || !isStalePlan(err)) throw err;
    renewStatement(sql.text);
    // Inside a transaction the failed statement has aborted it: the caller's transaction fails once.
    if (em.isInTransaction()) throw err;
    statementName(sql.text);
    return run<T>(em, sql);
  }
}

async function run<T>(em: EntityManager, sql: Sql): Promise<T[]> {
  return (await em.getKysely().executeQuery(CompiledQuery.raw(sql.text, sql.params))).rows as T[];
}

/**
 * Runs a typed query (built with `db(em)`) as a hot read: a named statement where the pool names them
 * (prepared.ts). For the hottest reads only, whose text is one of a few fixed shapes; given compiled
 * when it was compiled once per shape (compiled-once.ts).
 */
export async function prepared<O>(em: EntityManager, q: Compilable<O> | CompiledQuery<O>): Promise<O[]> {
  const compiled = 'compile' in q ? q.compile() : q;
  statementName(compiled.sql);
  const run = async () => (await db(em).executeQuery(compiled)).rows as O[];
  try {
    return await run();
  } catch (err) {
    if (!isStalePlan(err)) throw err;
    renewStatement(compiled.sql);
    // Inside a transaction the failed statement has aborted it: the caller's transaction fails once.
    if (em.isInTransaction()) throw err;
    statementName(compiled.sql);
    return run();
  }
}
