// Running statements on an EntityManager's connection (inside its transaction when it has one).
// `prepared(em, q)`: a typed query as a named statement, for the hottest reads. `query(em, sql)`: a
// statement given as text and bound parameters, for tests and tools that hold SQL text (the service's
// own statements are typed queries in the modules' repositories).
import type { EntityManager } from '@mikro-orm/postgresql';
import { CompiledQuery, type Compilable } from 'kysely';
import { db } from './entities.ts';
import { isStalePlan, parsesHotReads, renewStatement, statementName } from './prepared.ts';

/**
 * A statement and its parameters. `prepare`: run it as a named statement in services mode (prepared.ts);
 * only for texts built from a small, fixed set of templates.
 */
export type Sql = { text: string; params: unknown[]; prepare?: boolean };

/** Collects parameters while a statement is written: `${p(value)}` becomes `$1`, `$2`, ... */
export function sqlParams(): { params: unknown[]; p(value: unknown): string } {
  const params: unknown[] = [];
  return {
    params,
    p(value: unknown) {
      params.push(value);
      return `$${params.length}`;
    },
  };
}

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
 * Runs a typed query (built with `db(em)`) as a hot read: a named statement in services mode
 * (prepared.ts), its values parsed by the pool's client (timestamps to Date) instead of converted after
 * the fact by `db(em)`, which cost more than the statement. For the hottest reads only, whose text is one
 * of a few fixed shapes. Rows come back as `execute()` gives them.
 */
export async function prepared<O>(em: EntityManager, q: Compilable<O>): Promise<O[]> {
  const compiled = q.compile();
  const hot = statementName(compiled.sql) !== undefined && parsesHotReads((await em.getConnection().getNativeClient()) as unknown as { Client?: unknown });
  // Past the cap of named texts (prepared.ts), or on a pool without our client: `db(em)` converts.
  const run = async () => (await (hot ? em.getKysely() : db(em)).executeQuery(compiled)).rows as O[];
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
