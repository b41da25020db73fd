// The statements on lists themselves (list, with its owner): access checks and row locks, the rows every
// list shape is presented from (present.ts), the detail, the user's list ids, writes, featuring, the
// watchlist and the subqueries the title detail embeds (for-title.ts).
// Members and likes: member-repository.ts; items: item-repository.ts; sync states: sync-repository.ts.
import type { EntityManager } from '@mikro-orm/postgresql';
import { expressionBuilder, type Expression, type Kysely } from 'kysely';
import { jsonArrayFrom } from 'kysely/helpers/postgres';
import { db } from '../db/query-builder.ts';
import type { Tables } from '../schema/index.ts';
import { jsonb, jsonbOrNull } from '../db/json.ts';
import { offline } from '../db/compile.ts';
import { compiledOnce } from '../db/compiled-once.ts';

// ---- access and locks

type ListAccessInput = { listId: string; userId: string | null; lock: boolean };

/**
 * The list with its owner's profile privacy and `userId`'s membership (null: none); with `lock`, the list
 * row is locked (`for update of l`).
 */
function listAccessQuery(k: Kysely<Tables>, { listId, userId, lock }: ListAccessInput) {
  const q = k
    .selectFrom('list as l')
    .innerJoin('app_user as o', 'o.id', 'l.owner_id')
    .leftJoin('list_member as m', (join) => {
      const on = join.onRef('m.list_id', '=', 'l.id');
      // No user: no membership (as `m.user_id = null` matches nothing).
      return userId === null ? on.on((eb) => eb.lit(false)) : on.on('m.user_id', '=', userId);
    })
    .select(['l.id', 'l.owner_id', 'o.profile_privacy as owner_privacy', 'l.kind', 'l.is_public', 'l.is_watchlist', 'm.invited_at', 'm.accepted_at'])
    .where('l.id', '=', listId);
  return lock ? q.forUpdate('l') : q;
}

/** Every list read and write starts here: its text built once per shape (compiled-once.ts); no user and the lock are the shape. */
const listAccessOnce = compiledOnce(
  (p: ListAccessInput) => listAccessQuery(offline, p),
  (p, value) => ({ listId: value(p.listId), userId: p.userId === null ? null : value(p.userId), lock: p.lock }),
);

export async function selectListAccess(em: EntityManager, listId: string, userId: string | null, lock: boolean) {
  return (await db(em).executeQuery(listAccessOnce({ listId, userId, lock }))).rows[0];
}

/** The list's id and visibility, its row locked. */
export function lockList(tx: EntityManager, listId: string) {
  return db(tx).selectFrom('list').select(['id', 'is_public']).where('id', '=', listId).forUpdate().executeTakeFirst();
}

// ---- the rows of the list shapes

/** `list l` joined with its owner `u`. */
const listsWithOwner = (k: Kysely<Tables>) => k.selectFrom('list as l').innerJoin('app_user as u', 'u.id', 'l.owner_id');

/**
 * The columns of every list shape (present.ts). The preview posters (the first items in list order that
 * have a poster, at most 4) are stored on the list: the migration's list_preview_posters() defines them,
 * refreshCounts (item-repository.ts) stores them, and a trigger follows the catalog's poster changes.
 */
const LIST_COLUMNS = [
  'l.id', 'l.name', 'l.description', 'l.is_public', 'l.is_watchlist', 'l.kind', 'l.is_collaborative', 'l.is_featured',
  'l.external_source', 'l.external_url', 'l.last_synced_at', 'l.item_count', 'l.movie_count', 'l.show_count', 'l.anime_count', 'l.created_at',
  'l.owner_id', 'u.username as owner_username', 'l.preview_posters',
] as const;

/** The rows of these lists, in no particular order. */
function listRowsQuery(k: Kysely<Tables>, ids: readonly string[]) {
  return listsWithOwner(k)
    .select(LIST_COLUMNS)
    .where((eb) => eb('l.id', '=', eb.fn.any(eb.val(ids))));
}

/** Read after every list write (its change-feed record): its text built once (compiled-once.ts), the ids one array parameter. */
const listRowsOnce = compiledOnce(
  (p: { ids: readonly string[] }) => listRowsQuery(offline, p.ids),
  (p, value) => ({ ids: value(p.ids) }),
);

export async function selectListRows(em: EntityManager, ids: readonly string[]) {
  return (await db(em).executeQuery(listRowsOnce({ ids }))).rows;
}

/**
 * The list's row with what only the detail shows: sync state, likes, the viewer's like, collaborators.
 * Collaborators whose profile is private are left out unless `withPrivateMembers` (the viewer is one of
 * the list's own people: access.ts).
 */
export function selectListDetail(em: EntityManager, listId: string, viewerId: string, withPrivateMembers: boolean) {
  return listsWithOwner(db(em))
    .select(LIST_COLUMNS)
    .select(['l.dynamic_filters', 'l.sync_state', 'l.last_full_synced_at', 'l.last_sync_error'])
    .select((eb) => [
      eb.selectFrom('list_like as k').select(eb.cast<number>(eb.fn.countAll(), 'integer').as('n')).whereRef('k.list_id', '=', 'l.id').as('like_count'),
      eb.exists(eb.selectFrom('list_like as k').select(eb.lit(1).as('one')).whereRef('k.list_id', '=', 'l.id').where('k.user_id', '=', viewerId)).$castTo<boolean>().as('is_liked'),
      jsonArrayFrom(
        eb
          .selectFrom('list_member as m')
          .innerJoin('app_user as mu', 'mu.id', 'm.user_id')
          .select(['m.user_id as userId', 'mu.username', 'mu.avatar_url as avatarUrl'])
          .whereRef('m.list_id', '=', 'l.id')
          .where('m.accepted_at', 'is not', null)
          .$if(!withPrivateMembers, (q) => q.where('mu.profile_privacy', '=', 'public'))
          .orderBy('m.accepted_at')
          .orderBy('m.user_id'),
      ).as('collaborators'),
    ])
    .where('l.id', '=', listId)
    .executeTakeFirstOrThrow();
}

/** Ids of the user's lists (owned, or collaborating after accepting) after `after`, by id, at most `limit`. */
export function selectMyListIds(em: EntityManager, userId: string, after: string, limit: number) {
  const k = db(em);
  const owned = k.selectFrom('list').select('id').where('owner_id', '=', userId).where('id', '>', after).orderBy('id').limit(limit);
  const joined = k
    .selectFrom('list_member')
    .select('list_id as id')
    .where('user_id', '=', userId)
    .where('accepted_at', 'is not', null)
    .where('list_id', '>', after)
    .orderBy('list_id')
    .limit(limit);
  // Each side ordered and limited on its own (a derived table each: a set operation's operands take no `order by`).
  return k
    .selectFrom((eb) => eb.selectFrom(owned.as('o')).select('o.id').unionAll(eb.selectFrom(joined.as('j')).select('j.id')).as('x'))
    .select('x.id')
    .orderBy('x.id')
    .limit(limit)
    .execute();
}

// ---- rows with likes; a user's list by id or name

/** A list's row with its updated_at and number of likes. */
export type ListRowWithLikes = {
  id: string;
  name: string;
  description: string;
  is_public: boolean;
  item_count: number;
  created_at: Date;
  updated_at: Date;
  likes: number;
};

/** These lists' rows with their likes, in the order of `ids` (ids that name none left out). */
export async function listRowsWithLikes(em: EntityManager, ids: readonly string[]): Promise<ListRowWithLikes[]> {
  if (ids.length === 0) return [];
  const rows = await db(em)
    .selectFrom('list as l')
    .select(['l.id', 'l.name', 'l.description', 'l.is_public', 'l.item_count', 'l.created_at', 'l.updated_at'])
    .select((eb) => eb.selectFrom('list_like as k').select(eb.cast<number>(eb.fn.countAll(), 'integer').as('n')).whereRef('k.list_id', '=', 'l.id').as('likes'))
    .where((eb) => eb('l.id', '=', eb.fn.any(eb.val([...ids]))))
    .execute();
  const byId = new Map(rows.map((r) => [String(r.id), { ...r, id: String(r.id), likes: r.likes ?? 0 }]));
  return ids.flatMap((id) => byId.get(id) ?? []);
}

/** The user's own lists (never the watchlist): `owner l`'s rows as a lookup by id or name starts from. */
const ownedLists = (em: EntityManager, ownerId: string) =>
  db(em).selectFrom('list').select(['id', 'name']).where('owner_id', '=', ownerId).where('is_watchlist', '=', false);

/** The user's own list (not the watchlist) with this id, or undefined. */
export function ownedListById(em: EntityManager, ownerId: string, id: string) {
  return ownedLists(em, ownerId).where('id', '=', id).executeTakeFirst();
}

/** The user's own lists (not the watchlist) whose name matches the ILIKE `pattern`, oldest first, at most `limit`. */
export function ownedListsNamedLike(em: EntityManager, ownerId: string, pattern: string, limit: number) {
  return ownedLists(em, ownerId).where('name', 'ilike', pattern).orderBy('id').limit(limit).execute();
}

// ---- the title detail's lists (for-title.ts)

/** A number written into the statement (no parameter): the subqueries below are also spliced into statements written as text. */
const lit = (n: number) => expressionBuilder<Tables, never>().lit(n);

/** At most this many of the user's lists (the title page shows them as choices; oldest first). */
const TITLE_USER_LISTS_MAX = 200;
/** At most this many featured lists per title (most liked first). */
const TITLE_FEATURED_MAX = 10;

/**
 * Subquery: the JSON array of every list the user owns or collaborates on, oldest first, each with the
 * item holding the title (`contains_item_id`; `titleId`: a value or a column of the enclosing statement).
 * The values are as JSON has them (ids and counts numbers, timestamps ISO text): present.ts reads both.
 */
export function userListsOf(userId: string | Expression<string>, titleId: string | Expression<string>) {
  return jsonArrayFrom(
    listsWithOwner(offline)
      .select(LIST_COLUMNS)
      .select((eb) => eb.selectFrom('list_item as li').select('li.id').whereRef('li.list_id', '=', 'l.id').where('li.title_id', '=', titleId).as('contains_item_id'))
      .where((eb) =>
        eb.or([
          eb('l.owner_id', '=', userId),
          eb('l.id', 'in', eb.selectFrom('list_member').select('list_id').where('user_id', '=', userId).where('accepted_at', 'is not', null)),
        ]),
      )
      .orderBy('l.id')
      .limit(lit(TITLE_USER_LISTS_MAX)),
  );
}

/**
 * Subquery: the JSON array of the featured public lists of public profiles containing the title, most
 * liked first (as userListsOf). The same for every viewer: a private owner's featured list shows to
 * nobody here, its owner included (who sees it, marked isFeatured, among their own lists).
 */
export function featuredListsOf(titleId: string | Expression<string>) {
  return jsonArrayFrom(
    listsWithOwner(offline)
      .select(LIST_COLUMNS)
      .select((eb) => eb.selectFrom('list_like as k').select(eb.cast<number>(eb.fn.countAll(), 'integer').as('n')).whereRef('k.list_id', '=', 'l.id').as('like_count'))
      .where((eb) =>
        eb.and([
          eb.ref('l.is_featured'),
          eb.ref('l.is_public'),
          eb('u.profile_privacy', '=', 'public'),
          eb.exists(eb.selectFrom('list_item as li').select(eb.lit(1).as('one')).whereRef('li.list_id', '=', 'l.id').where('li.title_id', '=', titleId)),
        ]),
      )
      .orderBy('like_count', 'desc')
      .orderBy('l.id')
      .limit(lit(TITLE_FEATURED_MAX)),
  );
}

export function selectUserListsForTitle(em: EntityManager, userId: string, titleId: string) {
  return db(em).selectNoFrom(userListsOf(userId, titleId).as('lists')).executeTakeFirstOrThrow();
}

export function selectFeaturedListsForTitle(em: EntityManager, titleId: string) {
  return db(em).selectNoFrom(featuredListsOf(titleId).as('lists')).executeTakeFirstOrThrow();
}

// ---- writes

export type NewList = {
  ownerId: string;
  name: string;
  description: string;
  isPublic: boolean;
} & (
  | { kind: 'plain' }
  | { kind: 'dynamic'; dynamicFilters: Record<string, unknown> }
  | { kind: 'external'; externalSource: string; externalUrl: string }
);

/** Inserts a list (a dynamic or external one `pending` its first sync); its id. */
export async function insertList(tx: EntityManager, l: NewList): Promise<string> {
  const row = await db(tx)
    .insertInto('list')
    .values({
      owner_id: l.ownerId,
      name: l.name,
      description: l.description,
      is_public: l.isPublic,
      kind: l.kind,
      ...(l.kind === 'dynamic' ? { dynamic_filters: jsonbOrNull(l.dynamicFilters), sync_state: 'pending' as const } : {}),
      ...(l.kind === 'external' ? { external_source: l.externalSource, external_url: l.externalUrl, sync_state: 'pending' as const } : {}),
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return String(row.id);
}

export type ListSettings = { name?: string | null; description?: string | null; isPublic?: boolean | null; dynamicFilters?: Record<string, unknown> | null };

/** Changes the settings given (absent or null: kept); new filters make the list `pending`. */
export async function updateListSettings(tx: EntityManager, listId: string, s: ListSettings): Promise<void> {
  await db(tx)
    .updateTable('list')
    .set((eb) => ({
      name: s.name ?? eb.ref('name'),
      description: s.description ?? eb.ref('description'),
      is_public: s.isPublic ?? eb.ref('is_public'),
      dynamic_filters: s.dynamicFilters ? jsonb(s.dynamicFilters) : eb.ref('dynamic_filters'),
      sync_state: s.dynamicFilters ? 'pending' : eb.ref('sync_state'),
      updated_at: eb.fn<Date>('now'),
    }))
    .where('id', '=', listId)
    .execute();
}

export async function deleteListRow(tx: EntityManager, listId: string): Promise<void> {
  await db(tx).deleteFrom('list').where('id', '=', listId).execute();
}

export async function setFeaturedFlag(tx: EntityManager, listId: string, featured: boolean): Promise<void> {
  await db(tx)
    .updateTable('list')
    .set((eb) => ({ is_featured: featured, updated_at: eb.fn<Date>('now') }))
    .where('id', '=', listId)
    .execute();
}

/** Sets is_collaborative: whether anyone has accepted. */
export async function refreshCollaborative(tx: EntityManager, listId: string): Promise<void> {
  await db(tx)
    .updateTable('list')
    .set((eb) => ({
      is_collaborative: eb.exists(eb.selectFrom('list_member as m').select(eb.lit(1).as('one')).where('m.list_id', '=', listId).where('m.accepted_at', 'is not', null)).$castTo<boolean>(),
      updated_at: eb.fn<Date>('now'),
    }))
    .where('id', '=', listId)
    .execute();
}

/** The user's own list (not the watchlist) of this name, the oldest if several, its row locked; an import reuses it. */
export function lockOwnedListByName(tx: EntityManager, userId: string, name: string) {
  return db(tx)
    .selectFrom('list')
    .select(['id', 'kind', 'description', 'is_public', 'dynamic_filters'])
    .where('owner_id', '=', userId)
    .where('is_watchlist', '=', false)
    .where('name', '=', name)
    .orderBy('id')
    .limit(1)
    .forUpdate()
    .executeTakeFirst();
}

// ---- the watchlist

/**
 * Inserts the user's watchlist unless there is one (the unique index on (owner) where is_watchlist
 * makes a concurrent second insert wait, then do nothing); whether it inserted.
 */
export async function insertWatchlist(tx: EntityManager, userId: string, name: string): Promise<boolean> {
  const rows = await db(tx)
    .insertInto('list')
    .values({ owner_id: userId, name, is_watchlist: true })
    .onConflict((oc) => oc.column('owner_id').where((eb) => eb.ref('is_watchlist')).doNothing())
    .returning('id')
    .execute();
  return rows.length > 0;
}

/** The id of the user's watchlist, its row locked; null when the user has none. */
export async function lockWatchlist(tx: EntityManager, userId: string): Promise<string | null> {
  const row = await db(tx)
    .selectFrom('list')
    .select('id')
    .where('owner_id', '=', userId)
    .where((eb) => eb.ref('is_watchlist'))
    .forUpdate()
    .executeTakeFirst();
  return row ? String(row.id) : null;
}
