// Query builders that only compile, never connect: for subqueries one module embeds in another's
// statement, and for statements built once (when a module loads, or once per shape: compiled-once.ts).
import { DummyDriver, Kysely, PostgresAdapter, PostgresIntrospector, PostgresQueryCompiler } from 'kysely';
import type { Tables } from '../schema/index.ts';

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
