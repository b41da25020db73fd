// Query builders that only compile, never connect: for subqueries one module embeds in another's
// statement, for statements built once when a module loads, and for the benchmarks, which run the
// services' statements through a bare `pg` client as their baseline and take the text from here.
import { MikroORM } from '@mikro-orm/postgresql';
import { DummyDriver, Kysely, PostgresAdapter, PostgresIntrospector, PostgresQueryCompiler, type Compilable } from 'kysely';
import { db, entities, type Tables } from './entities.ts';
import { PostgresNamingStrategy } from './naming.ts';
import type { Sql } from './sql.ts';

/**
 * PostgreSQL's compiler alone. `db(em)` adds MikroORM's plugin, which writes a JSON column selected as
 * it is as `col as col`: for a statement without one (the same text either way) this one is enough, and
 * cheap enough to use when a module loads.
 */
export const offline = new Kysely<Tables>({
  dialect: {
    createAdapter: () => new PostgresAdapter(),
    createDriver: () => new DummyDriver(),
    createIntrospector: (k) => new PostgresIntrospector(k),
    createQueryCompiler: () => new PostgresQueryCompiler(),
  },
});

let ormCompiler: Kysely<Tables> | undefined;

/**
 * `db(em)` of an ORM that never connects: the very builder (and plugin) the services use, so any
 * statement compiles to their text. Made on first use (it reads the entities' metadata).
 */
export function compiler(): Kysely<Tables> {
  ormCompiler ??= db(new MikroORM({ entities: [...entities], namingStrategy: PostgresNamingStrategy, dbName: 'compile-only' }).em.fork());
  return ormCompiler;
}

/** The statement `q` runs, as `query()` and the benchmarks take it (`prepare`: as a named statement). */
export function toSql(q: Compilable<unknown>, prepare?: boolean): Sql {
  const c = q.compile();
  return { text: c.sql, params: [...c.parameters], ...(prepare ? { prepare } : {}) };
}
