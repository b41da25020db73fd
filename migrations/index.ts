// Every committed migration, in order. MikroORM runs the ones a database has not recorded yet.
import { Migration20261122000000Catalog } from './Migration20261122000000Catalog.ts';

export const migrationsList = [{ name: 'Migration20261122000000Catalog', class: Migration20261122000000Catalog }];
