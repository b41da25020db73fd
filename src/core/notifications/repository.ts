// The notifications' statements: the inbox, recording one, marking read. The new-episode job's query is
// in new-episodes-repository.ts; preferences in preferences-repository.ts.
import type { EntityManager } from '@mikro-orm/postgresql';
import { db } from '../db/query-builder.ts';
import { jsonb } from '../db/json.ts';
import type { NotificationKind } from './kinds.ts';

/** The columns presentNotification reads. */
const COLUMNS = ['id', 'kind', 'title', 'body', 'data', 'read_at', 'created_at'] as const;

/** A notification as presentNotification reads it. */
export type NotificationRecord = NonNullable<Awaited<ReturnType<typeof findNotification>>>;

/**
 * A page of the inbox, newest first: `unread` filters, `after` is the position (created_at as text to the
 * microsecond, id) the page starts after. Each row also carries its own position's created_at text.
 */
export function inboxPage(em: EntityManager, userId: string, q: { unread?: boolean | undefined; after: [string, string] | null; limit: number }) {
  const { unread, after } = q;
  return db(em)
    .selectFrom('notification as n')
    .select(COLUMNS.map((c) => `n.${c}` as const))
    .select((eb) =>
      eb
        .fn<string>('to_char', [eb.fn('timezone', [eb.val('UTC'), eb.ref('n.created_at')]), eb.val('YYYY-MM-DD"T"HH24:MI:SS.US"Z"')])
        .as('position_at'),
    )
    .where('n.user_id', '=', userId)
    .$if(unread !== undefined, (qb) => qb.where('n.read_at', unread ? 'is' : 'is not', null))
    .$if(after !== null, (qb) =>
      qb.where((eb) =>
        eb(eb.refTuple('n.created_at', 'n.id'), '<', eb.tuple(eb.cast<Date>(eb.val(after![0]), 'timestamptz'), eb.cast<string>(eb.val(after![1]), 'bigint'))),
      ),
    )
    .orderBy('n.created_at', 'desc')
    .orderBy('n.id', 'desc')
    .limit(q.limit)
    .execute();
}

export async function unreadCount(em: EntityManager, userId: string): Promise<number> {
  const row = await db(em)
    .selectFrom('notification')
    .select((eb) => eb.cast<number>(eb.fn.countAll(), 'integer').as('n'))
    .where('user_id', '=', userId)
    .where('read_at', 'is', null)
    .executeTakeFirst();
  return row?.n ?? 0;
}

export type NotificationInsert = { userId: string; kind: NotificationKind; title: string; body: string; data: Record<string, unknown>; dedupeKey: string | null };

/**
 * Inserts the notification in one statement, unless the user turned its kind off (in-app) or the dedupe
 * key exists for the user; returns it, or undefined when not inserted.
 */
export function insertNotification(tx: EntityManager, n: NotificationInsert) {
  const k = db(tx);
  return k
    .insertInto('notification')
    .columns(['user_id', 'kind', 'title', 'body', 'data', 'dedupe_key'])
    .expression(
      k
        .selectNoFrom((eb) => [
          eb.cast(eb.val(n.userId), 'uuid').as('user_id'),
          eb.val(n.kind).as('kind'),
          eb.val(n.title).as('title'),
          eb.val(n.body).as('body'),
          jsonb(n.data).as('data'),
          eb.val(n.dedupeKey).as('dedupe_key'),
        ])
        .where((eb) =>
          eb.not(
            eb.exists(
              eb
                .selectFrom('notification_preference as p')
                .select(eb.lit(1).as('one'))
                .where('p.user_id', '=', n.userId)
                .where('p.kind', '=', n.kind)
                .where((eb) => eb.not(eb.ref('p.in_app'))),
            ),
          ),
        ),
    )
    .onConflict((oc) => oc.columns(['user_id', 'dedupe_key']).doNothing())
    .returning(COLUMNS)
    .executeTakeFirst();
}

/** Marks the notification read when it is unread; returns it then (undefined: absent, or already read). */
export function markUnreadRead(tx: EntityManager, userId: string, id: string) {
  return db(tx)
    .updateTable('notification')
    .set((eb) => ({ read_at: eb.fn<Date>('now') }))
    .where('id', '=', id)
    .where('user_id', '=', userId)
    .where('read_at', 'is', null)
    .returning(COLUMNS)
    .executeTakeFirst();
}

/** The user's notification, read or not. */
export function findNotification(tx: EntityManager, userId: string, id: string) {
  return db(tx).selectFrom('notification').select(COLUMNS).where('id', '=', id).where('user_id', '=', userId).executeTakeFirst();
}

/** Marks every unread notification of the user read; returns them. */
export function markAllUnreadRead(tx: EntityManager, userId: string) {
  return db(tx)
    .updateTable('notification')
    .set((eb) => ({ read_at: eb.fn<Date>('now') }))
    .where('user_id', '=', userId)
    .where('read_at', 'is', null)
    .returning(COLUMNS)
    .execute();
}
