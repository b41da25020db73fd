// How values travel between the service and PostgreSQL (core/db/value-types.ts, core/db/json.ts): the
// pool parses timestamptz to Date and keeps date, timestamp and interval as text, for every statement;
// JSON values the service writes arrive as the same JSON, arrays and strings included. These fail if
// MikroORM stops passing its `driverOptions.types` to the pg pool, or pg stops honouring them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import type { Database } from '../src/core/db/orm.ts';
import { db as typed } from '../src/core/db/query-builder.ts';
import { jsonb, jsonbOrNull } from '../src/core/db/json.ts';
import { query } from '../src/core/db/sql.ts';
import { migratedDatabase } from './helpers/db.ts';

let db: Database;
let release: () => Promise<void>;

beforeAll(async () => {
  ({ db, release } = await migratedDatabase());
});
afterAll(() => release?.());

describe('values read', () => {
  it('timestamptz as Date; date, timestamp and interval as the text PostgreSQL writes', async () => {
    const [row] = await query<Record<string, unknown>>(db.orm.em.fork(), {
      text: `select $1::timestamptz as at, '2026-02-03'::date as day, '2026-02-03 04:05:06.789'::timestamp as local,
        '1 day 02:00:00'::interval as span, array['2026-02-03'::date] as days, array[$1::timestamptz] as ats`,
      params: ['2026-02-03T04:05:06.789Z'],
    });
    expect(row).toEqual({
      at: new Date('2026-02-03T04:05:06.789Z'),
      day: '2026-02-03',
      local: '2026-02-03 04:05:06.789',
      span: '1 day 02:00:00',
      days: ['2026-02-03'],
      ats: [new Date('2026-02-03T04:05:06.789Z')],
    });
  });

  it('an entity timestamp column through the typed builder is a Date, bigint ids are strings', async () => {
    const em = db.orm.em.fork();
    await typed(em).insertInto('oauth_key').values({ kind: 'values-probe', material: jsonb({ a: 1 }) }).execute();
    const row = await typed(em).selectFrom('oauth_key').select(['kind', 'created_at']).where('kind', '=', 'values-probe').executeTakeFirstOrThrow();
    expect(row.created_at).toBeInstanceOf(Date);
    const [ids] = await query<{ id: unknown }>(em, { text: 'select 9007199254740993::bigint as id', params: [] });
    expect(ids).toEqual({ id: '9007199254740993' });
  });
});

describe('JSON written', () => {
  // pg alone would send an array as a PostgreSQL array literal and a string as text that is not JSON.
  it.each([
    ['an array', [{ kid: 'a' }, { kid: 'b' }]],
    ['an empty array', []],
    ['a string', 'plain "text"'],
    ['a number', 42],
    ['an object with nesting', { a: [1, 2, { b: null }], c: 'x' }],
  ])('%s arrives as the same JSON', async (label, value) => {
    const em = db.orm.em.fork();
    const kind = `json-${label}`;
    await typed(em).insertInto('oauth_key').values({ kind, material: jsonb(value) }).execute();
    const row = await typed(em).selectFrom('oauth_key').select(['material', sql<string>`jsonb_typeof(material)`.as('json_type')]).where('kind', '=', kind).executeTakeFirstOrThrow();
    expect(row.material).toEqual(value);
    expect(row.json_type).toBe(Array.isArray(value) ? 'array' : value === null ? 'null' : typeof value === 'object' ? 'object' : typeof value);
  });

  it('jsonbOrNull keeps null as SQL NULL, not the JSON value null', async () => {
    const em = db.orm.em.fork();
    await typed(em)
      .insertInto('job_run')
      .values({ job: 'values-probe', instance: 'i', attempt: 0, started_at: new Date(), finished_at: new Date(), outcome: 'ok', summary: jsonbOrNull(null) })
      .execute();
    const [row] = await query<{ is_null: boolean }>(em, { text: `select summary is null as is_null from job_run where job = 'values-probe'`, params: [] });
    expect(row).toEqual({ is_null: true });
  });
});
