// Hand-written SQL with bound parameters, run on an EntityManager's connection (inside its transaction
// when it has one). MikroORM's own `em.execute` inlines parameters into the text; this sends them
// separately, as the same statements do when run through a bare `pg` client.
import type { EntityManager } from '@mikro-orm/postgresql';
import { CompiledQuery } from 'kysely';

export type Sql = { text: string; params: unknown[] };

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
  const result = await em.getKysely().executeQuery(CompiledQuery.raw(sql.text, sql.params));
  return result.rows as T[];
}
