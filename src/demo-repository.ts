// The demo account's statement (demo.ts).
import type { EntityManager } from '@mikro-orm/postgresql';
import { db } from './core/db/query-builder.ts';

/** Some row of app_user, or undefined when there is no user yet. */
export function anyUser(em: EntityManager) {
  return db(em)
    .selectFrom('app_user')
    .select((eb) => eb.lit(1).as('one'))
    .limit(1)
    .executeTakeFirst();
}
