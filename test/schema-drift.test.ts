// The entities (src/core/schema/) and the migrations describe one schema: after every migration
// has run, MikroORM's schema generator finds nothing to change. A migration without its entity change,
// or an entity change without its migration, fails here.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate, openDatabase, type Database } from '../src/core/db/orm.ts';
import { db as typed } from '../src/core/db/query-builder.ts';
import { freshDatabase, servicesMode, type TestDatabase } from './helpers/db.ts';

let test: TestDatabase;
let database: Database;

beforeAll(async () => {
  test = await freshDatabase();
  database = await openDatabase({ databaseUrl: test.databaseUrl, dataDir: test.dataDir });
  await migrate(database.orm);
});

afterAll(async () => {
  await database?.close();
  await test?.cleanup();
});

describe(`the schema (${servicesMode ? 'PostgreSQL' : 'embedded'})`, () => {
  it('matches the entities once migrated: the schema generator has nothing to change', async () => {
    expect(await database.orm.schema.getUpdateSchemaSQL({ wrap: false })).toBe('');
  });

  it('has a table for every entity and an entity for every table', async () => {
    const tables = await database.orm.em.getConnection().execute<Array<{ table_name: string }>>(
      `select table_name from information_schema.tables where table_schema = 'public' and table_type = 'BASE TABLE'`,
    );
    const names = tables.map((t) => t.table_name).filter((t) => t !== 'schema_migrations').sort();
    const mapped = database.orm.getMetadata().getAll();
    expect([...mapped.values()].map((m) => m.tableName).sort()).toEqual(names);
  });
});

// Never run: `tsc` (npm run typecheck) checks that the typed query builder refuses names no entity has.
// Each line below must stay an error; if typing were lost, the directive itself would fail `tsc`.
export function refusedByTheCompiler(database: Database) {
  const q = typed(database.orm.em.fork());
  // @ts-expect-error: no table "watch_histories"
  q.selectFrom('watch_histories').selectAll();
  // @ts-expect-error: watch_history has no column "watched_on"
  q.selectFrom('watch_history').select('watched_on');
  // @ts-expect-error: rating is a number column
  q.updateTable('user_rating').set({ rating: 'ten' });
}
