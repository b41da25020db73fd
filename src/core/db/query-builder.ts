// The typed query builder: MikroORM's Kysely instance typed from the entities (schema/index.ts).
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Kysely } from 'kysely';
import type { Tables } from '../schema/index.ts';

/**
 * The typed query builder on `em`'s connection (inside its transaction when it has one). Values come back
 * as the pool parses them (value-types.ts): timestamptz as Date, bigint as string, date and interval as
 * text, json as its value. JSON written to a json column goes through `jsonb(value)` (json.ts): pg would
 * send a JavaScript array as a PostgreSQL array.
 */
export function db(em: EntityManager): Kysely<Tables> {
  return em.getKysely<Tables>();
}
