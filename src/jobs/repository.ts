// The statements on pg-boss's own table (services mode): the health figures' stuck runs and the queue's
// view in `jobs:status`. pg-boss owns its schema, so its table is typed here, not by an entity; its
// timestamps come as PostgreSQL sends them (text).
import type { EntityManager } from '@mikro-orm/postgresql';
import { db } from '../core/db/query-builder.ts';

/** The columns of pg-boss's job table read here. */
type PgBossJob = {
  id: string;
  name: string;
  state: string;
  retry_count: number;
  created_on: string;
  started_on: string | null;
  completed_on: string | null;
  output: unknown;
};

const boss = (em: EntityManager, schema: string) => db(em).withSchema(schema).withTables<{ job: PgBossJob }>();

/** By queue name: its jobs active for longer than `seconds` (names without any are absent). */
export function activeLongerThan(em: EntityManager, schema: string, queues: readonly { name: string; seconds: number }[]) {
  return boss(em, schema)
    .selectFrom('job as j')
    .select((eb) => ['j.name', eb.cast<number>(eb.fn.countAll(), 'integer').as('n')])
    .where('j.state', '=', 'active')
    .where((eb) =>
      eb.or(
        queues.map((q) =>
          eb.and([
            eb('j.name', '=', q.name),
            // make_interval's positional arguments are (years, months, weeks, days, hours, mins, secs).
            eb('j.started_on', '<', eb(eb.fn<string>('now'), '-', eb.fn<string>('make_interval', [eb.lit(0), eb.lit(0), eb.lit(0), eb.lit(0), eb.lit(0), eb.lit(0), eb.val(q.seconds)]))),
          ]),
        ),
      ),
    )
    .groupBy('j.name')
    .execute();
}

/** Whether pg-boss's job table exists (pg-boss has run on this database). */
export async function hasPgBossJobs(em: EntityManager, schema: string): Promise<boolean> {
  const row = await db(em)
    .selectNoFrom((eb) => eb(eb.fn('to_regclass', [eb.val(`${schema}.job`)]), 'is not', null).as('ok'))
    .executeTakeFirst();
  return row?.ok === true;
}

/** Jobs by queue name and state. */
export function jobCountsByState(em: EntityManager, schema: string) {
  return boss(em, schema)
    .selectFrom('job')
    .select((eb) => ['name', eb.cast<string>('state', 'text').as('state'), eb.cast<number>(eb.fn.countAll(), 'integer').as('n')])
    .groupBy(['name', 'state'])
    .execute();
}

/** Each queue's last job that failed for good (retries spent). */
export function lastFailedJobs(em: EntityManager, schema: string) {
  return boss(em, schema)
    .selectFrom('job')
    .distinctOn('name')
    .select(['name', 'id', 'retry_count', 'created_on', 'completed_on', 'output'])
    .where('state', '=', 'failed')
    .orderBy('name')
    .orderBy('completed_on', (ob) => ob.desc().nullsLast())
    .execute();
}
