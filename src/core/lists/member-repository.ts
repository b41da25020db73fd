// The statements on who is part of a list and who likes it: list_member (collaborators, invitations),
// the list's audience in the change feed, and list_like.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Expression, Kysely } from 'kysely';
import { offline } from '../db/compile.ts';
import { compiledOnce } from '../db/compiled-once.ts';
import { db } from '../db/query-builder.ts';
import type { Tables } from '../schema/index.ts';

/** The users whose lists include this one: the owner and accepted collaborators. */
function listAudienceQuery(k: Kysely<Tables>, listId: string) {
  return k
    .selectFrom('list')
    .select('owner_id as user_id')
    .where('id', '=', listId)
    .union(k.selectFrom('list_member').select('user_id').where('list_id', '=', listId).where('accepted_at', 'is not', null));
}

/** Read on every list write (who gets its change-feed records): its text built once (compiled-once.ts). */
const listAudienceOnce = compiledOnce(
  (p: { listId: string }) => listAudienceQuery(offline, p.listId),
  (p, value) => ({ listId: value(p.listId) }),
);

export async function selectListAudience(tx: EntityManager, listId: string): Promise<string[]> {
  const { rows } = await db(tx).executeQuery(listAudienceOnce({ listId }));
  return rows.map((r) => r.user_id);
}

/** Ids of the lists the user owns or belongs to (invited or collaborating): the lists whose people they are among. */
const listsOfPerson = (k: Kysely<Tables>, userId: string | Expression<string>) =>
  k.selectFrom('list').select('id').where('owner_id', '=', userId).unionAll(k.selectFrom('list_member').select('list_id as id').where('user_id', '=', userId));

/**
 * The user of this username (compared case-insensitively) as `viewerId` may find them: a private profile
 * only when the two already share a list (owner, invited or collaborator of the same list); otherwise
 * no row, exactly as for a name nobody has. Each side's lists are read through their indexes (list_owner,
 * list_member_user).
 */
export function selectUserVisibleTo(tx: EntityManager, username: string, viewerId: string) {
  return db(tx)
    .selectFrom('app_user as u')
    .select(['u.id', 'u.username'])
    .where((eb) => eb(eb.fn<string>('lower', ['u.username']), '=', eb.fn<string>('lower', [eb.val(username)])))
    .where((eb) =>
      eb.or([
        eb('u.profile_privacy', '=', 'public'),
        eb('u.id', '=', viewerId),
        eb.exists(
          eb
            .selectFrom(listsOfPerson(offline, eb.ref('u.id')).as('theirs'))
            .select('theirs.id')
            .where('theirs.id', 'in', listsOfPerson(offline, viewerId)),
        ),
      ]),
    )
    .executeTakeFirst();
}

/** Invites the user unless already a member; whether this made a new invitation. */
export async function insertMember(tx: EntityManager, listId: string, userId: string): Promise<boolean> {
  const rows = await db(tx).insertInto('list_member').values({ list_id: listId, user_id: userId }).onConflict((oc) => oc.doNothing()).returning('list_id').execute();
  return rows.length > 0;
}

export function selectMembership(tx: EntityManager, listId: string, userId: string) {
  return db(tx).selectFrom('list_member').select('accepted_at').where('list_id', '=', listId).where('user_id', '=', userId).executeTakeFirst();
}

export async function acceptMembership(tx: EntityManager, listId: string, userId: string): Promise<void> {
  await db(tx)
    .updateTable('list_member')
    .set((eb) => ({ accepted_at: eb.fn<Date>('now') }))
    .where('list_id', '=', listId)
    .where('user_id', '=', userId)
    .execute();
}

/** The membership of the user of this username (case-insensitive), invited or accepted. */
export function selectMemberByUsername(tx: EntityManager, listId: string, username: string) {
  return db(tx)
    .selectFrom('list_member as m')
    .innerJoin('app_user as u', 'u.id', 'm.user_id')
    .select(['m.user_id', 'm.accepted_at'])
    .where('m.list_id', '=', listId)
    .where((eb) => eb(eb.fn<string>('lower', ['u.username']), '=', eb.fn<string>('lower', [eb.val(username)])))
    .executeTakeFirst();
}

export async function deleteMember(tx: EntityManager, listId: string, userId: string): Promise<void> {
  await db(tx).deleteFrom('list_member').where('list_id', '=', listId).where('user_id', '=', userId).execute();
}

/** The user's invitations not yet accepted, oldest first (at most 1000). */
export function selectPendingInvitations(em: EntityManager, userId: string) {
  return db(em)
    .selectFrom('list_member as m')
    .innerJoin('list as l', 'l.id', 'm.list_id')
    .innerJoin('app_user as u', 'u.id', 'l.owner_id')
    .select(['l.id', 'l.name', 'u.username', 'm.invited_at'])
    .where('m.user_id', '=', userId)
    .where('m.accepted_at', 'is', null)
    .orderBy('m.invited_at')
    .orderBy('l.id')
    .limit(1000)
    .execute();
}

// ---- likes

/** Likes the list unless already liked; when this made the like, when it was made. */
export async function insertLike(tx: EntityManager, listId: string, userId: string): Promise<Date | null> {
  const row = await db(tx).insertInto('list_like').values({ list_id: listId, user_id: userId }).onConflict((oc) => oc.doNothing()).returning('liked_at').executeTakeFirst();
  return row?.liked_at ?? null;
}

/** Takes the like back; whether there was one. */
export async function deleteLike(tx: EntityManager, listId: string, userId: string): Promise<boolean> {
  const rows = await db(tx).deleteFrom('list_like').where('list_id', '=', listId).where('user_id', '=', userId).returning('list_id').execute();
  return rows.length > 0;
}

export async function countLikes(tx: EntityManager, listId: string): Promise<number> {
  const row = await db(tx)
    .selectFrom('list_like')
    .select((eb) => eb.cast<number>(eb.fn.countAll(), 'integer').as('n'))
    .where('list_id', '=', listId)
    .executeTakeFirst();
  return row?.n ?? 0;
}
