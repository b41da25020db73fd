// Constraint names as PostgreSQL gives them when a migration leaves them out (`<table>_<columns>_fkey`),
// so the entities describe the tables the hand-written migrations made without renaming anything.
import { UnderscoreNamingStrategy } from '@mikro-orm/core';

export class PostgresNamingStrategy extends UnderscoreNamingStrategy {
  override indexName(tableName: string, columns: string[], type: Parameters<UnderscoreNamingStrategy['indexName']>[2]): string {
    if (type === 'foreign') return super.indexName(tableName, columns, 'fkey' as never);
    return super.indexName(tableName, columns, type);
  }
}
