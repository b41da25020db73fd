// Change-log retention walks the log in id order a step at a time (no index on changed_at): the same
// rows go whatever the step size, a delete goes with the rows before it even when they lie in earlier
// steps, and the sweep stops at the first step that reaches rows younger than the period.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser } from '../src/core/accounts/service.ts';
import { recordChanges, type Change } from '../src/core/changes/record.ts';
import type { Database } from '../src/core/db/orm.ts';
import { query } from '../src/core/db/sql.ts';
import { transaction } from '../src/core/db/transaction.ts';
import { pruneChangeLog } from '../src/core/sync/retention.ts';
import { migratedDatabase } from './helpers/db.ts';

const DAY = 86_400_000;
let db: Database;
let release: () => Promise<void>;
const em = () => db.orm.em.fork();

beforeAll(async () => {
  ({ db, release } = await migratedDatabase());
});
afterAll(() => release?.());

const change = (resourceId: string, op: 'upsert' | 'delete', n: number): Change => ({ resource: 'ratings', resourceId, op, data: op === 'delete' ? null : { n } });

async function userWith(name: string, changes: Change[]): Promise<string> {
  const user = await createUser(em(), { username: name, password: 'retention-password-1' });
  await transaction(em(), (tx) => recordChanges(tx, user.id, changes));
  return user.id;
}

async function left(userId: string): Promise<Array<[string, string, number | undefined]>> {
  const rows = await query<{ resource_id: string; op: string; data: { n: number } | null }>(em(), {
    text: `select resource_id, op, data from change_log where user_id = $1 order by id`,
    params: [userId],
  });
  return rows.map((r) => [r.resource_id, r.op, r.data?.n]);
}

describe('pruneChangeLog', () => {
  it('deletes the same rows in steps of one row as in one large step; a delete goes with the rows before it', async () => {
    const log = [
      change('1', 'upsert', 1),
      change('1', 'upsert', 2),
      change('2', 'upsert', 1),
      change('2', 'delete', 0),
      change('3', 'upsert', 1),
      change('4', 'upsert', 1),
      change('4', 'delete', 0),
      change('4', 'upsert', 2),
    ];
    const kept = [
      ['1', 'upsert', 2],
      ['3', 'upsert', 1],
      ['4', 'upsert', 2],
    ];
    const a = await userWith('stepone', log);
    expect(await pruneChangeLog(em(), new Date(Date.now() + 80 * DAY), 1)).toBe(0);
    expect(await pruneChangeLog(em(), new Date(Date.now() + 92 * DAY), 1)).toBe(5);
    expect(await left(a)).toEqual(kept);
    const c = await userWith('stepbig', log);
    expect(await pruneChangeLog(em(), new Date(Date.now() + 92 * DAY))).toBe(5);
    expect(await left(c)).toEqual(kept);
  });

  it('keeps a delete while a row before it is younger than the period', async () => {
    const u = await userWith('young', [change('1', 'upsert', 1), change('1', 'delete', 0)]);
    await query(em(), { text: `update change_log set changed_at = now() + interval '100 days' where user_id = $1 and op = 'upsert'`, params: [u] });
    // The young upsert stops the sweep at once: nothing of this user goes.
    await pruneChangeLog(em(), new Date(Date.now() + 92 * DAY), 1);
    expect(await left(u)).toEqual([
      ['1', 'upsert', 1],
      ['1', 'delete', undefined],
    ]);
    // The young row would stop every later sweep of this file's log here.
    await query(em(), { text: `update change_log set changed_at = now() where user_id = $1`, params: [u] });
  });

  it('stops at the first step that reaches rows younger than the period; later old rows wait for the next sweep', async () => {
    const u = await userWith('stops', [change('1', 'upsert', 1), change('1', 'upsert', 2), change('2', 'upsert', 1), change('2', 'upsert', 2)]);
    const ids = (await query<{ id: string }>(em(), { text: `select id::text as id from change_log where user_id = $1 order by id`, params: [u] })).map((r) => r.id);
    // The second row is young: the sweep stops there, and item 2's superseded row (after it) stays.
    await query(em(), { text: `update change_log set changed_at = now() + interval '100 days' where id = $1`, params: [ids[1]] });
    await pruneChangeLog(em(), new Date(Date.now() + 92 * DAY), 1);
    expect(await left(u)).toEqual([
      ['1', 'upsert', 2],
      ['2', 'upsert', 1],
      ['2', 'upsert', 2],
    ]);
    // Once that row is old too, the next sweep goes on past it.
    await query(em(), { text: `update change_log set changed_at = now() where id = $1`, params: [ids[1]] });
    await pruneChangeLog(em(), new Date(Date.now() + 92 * DAY), 1);
    expect(await left(u)).toEqual([
      ['1', 'upsert', 2],
      ['2', 'upsert', 2],
    ]);
  });
});
