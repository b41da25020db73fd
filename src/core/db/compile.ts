// Query builders that only compile, never connect: for subqueries one module embeds in another's
// statement, for statements built once when a module loads, and for the benchmarks, which run the
// services' statements through a bare `pg` client as their baseline and take the text from here.
import { DummyDriver, Kysely, PostgresAdapter, PostgresIntrospector, PostgresQueryCompiler, type Compilable } from 'kysely';
import type { Tables } from '../schema/index.ts';
import type { Sql } from './sql.ts';

/**
 * PostgreSQL's compiler alone: `db(em)` is MikroORM's Kysely instance without plugins, so a statement
 * compiles here to the very text the services run.
 */
export const offline = new Kysely<Tables>({
  dialect: {
    createAdapter: () => new PostgresAdapter(),
    createDriver: () => new DummyDriver(),
    createIntrospector: (k) => new PostgresIntrospector(k),
    createQueryCompiler: () => new PostgresQueryCompiler(),
  },
});

/** The statement `q` runs, as `query()` and the benchmarks take it (`prepare`: as a named statement). */
export function toSql(q: Compilable<unknown>, prepare?: boolean): Sql {
  const c = q.compile();
  return { text: c.sql, params: [...c.parameters], ...(prepare ? { prepare } : {}) };
}
