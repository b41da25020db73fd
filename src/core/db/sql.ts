// Hand-written SQL with bound parameters, run on an EntityManager's connection (inside its transaction
// when it has one). MikroORM's own `em.execute` inlines parameters into the text; this sends them
// separately, as the same statements do when run through a bare `pg` client.
import type { EntityManager } from '@mikro-orm/postgresql';
import { CompiledQuery } from 'kysely';
import { isStalePlan, renewStatement, statementName } from './prepared.ts';

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
