// Every committed migration, in order. MikroORM runs the ones a database has not recorded yet.
import { Migration20261122000000Catalog } from './Migration20261122000000Catalog.ts';
import { Migration20261122010000Accounts } from './Migration20261122010000Accounts.ts';
import { Migration20261122020000OAuth } from './Migration20261122020000OAuth.ts';

export const migrationsList = [
  { name: 'Migration20261122000000Catalog', class: Migration20261122000000Catalog },
  { name: 'Migration20261122010000Accounts', class: Migration20261122010000Accounts },
  { name: 'Migration20261122020000OAuth', class: Migration20261122020000OAuth },
];
