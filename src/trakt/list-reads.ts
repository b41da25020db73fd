// The reads Trakt's list routes need that the list procedures do not give: Trakt names a list by its
// owner and an id or a slug, pages by offset (`page`, `limit`) rather than by cursor, filters items by
// type, and shows `updated_at` and `likes`. Each read costs its page: the owner's lists by the
// list_owner index, a list's items by list_item_order, counts kept on the list where Trakt asks for none
// of a type. Who may see a list is still core/lists/access.ts's decision (the routes call it).
import type { EntityManager } from '@mikro-orm/postgresql';
import { db } from '../core/db/query-builder.ts';
import { isRowId } from '../core/catalog/title-keys.ts';
import { listSlug } from './list-present.ts';

/** A list's row as Trakt's list shape needs it. */
export type TraktListRow = {
  id: string;
  name: string;
  description: string;
  is_public: boolean;
  item_count: number;
  created_at: Date;
  updated_at: Date;
  likes: number;
};

/** These lists' rows, in the order of `ids` (ids that name none left out). */
export async function traktListRows(em: EntityManager, ids: readonly string[]): Promise<TraktListRow[]> {
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

/**
 * One page of the lists a user owns (the watchlist is not one of Trakt's lists: it has routes of its
 * own), oldest first; `publicOnly` for a reader who is not the owner. With the number of such lists.
 */
export async function ownedListPage(em: EntityManager, ownerId: string, publicOnly: boolean, offset: number, limit: number): Promise<{ ids: string[]; total: number }> {
  const owned = db(em)
    .selectFrom('list')
    .where('owner_id', '=', ownerId)
    .where('is_watchlist', '=', false)
    .$if(publicOnly, (q) => q.where('is_public', '=', true));
  const [rows, count] = await Promise.all([
    owned.select('id').orderBy('id').offset(offset).limit(limit).execute(),
    owned.select((eb) => eb.cast<number>(eb.fn.countAll(), 'integer').as('n')).executeTakeFirstOrThrow(),
  ]);
  return { ids: rows.map((r) => String(r.id)), total: count.n };
}

/**
 * The id of the list of `ownerId` that `idOrSlug` names (its id, or the slug of its name; two lists with
 * one slug: the older), or null. The watchlist is never named here.
 */
export async function ownedListId(em: EntityManager, ownerId: string, idOrSlug: string): Promise<string | null> {
  const owned = db(em).selectFrom('list').select(['id', 'name']).where('owner_id', '=', ownerId).where('is_watchlist', '=', false);
  if (isRowId(idOrSlug)) {
    const row = await owned.where('id', '=', idOrSlug).executeTakeFirst();
    if (row) return String(row.id);
  }
  if (!/^[a-z0-9]+(?:-[a-z0-9]+)*$/.test(idOrSlug) || idOrSlug.length > 300) return null;
  // The slug's words, in order, narrow the candidates in SQL; the slug itself decides (accents and
  // punctuation fold in listSlug the way they cannot in a LIKE pattern).
  const pattern = `%${idOrSlug.split('-').join('%')}%`;
  const rows = await owned.where('name', 'ilike', pattern).orderBy('id').limit(50).execute();
  const row = rows.find((r) => listSlug(r.name) === idOrSlug);
  return row ? String(row.id) : null;
}

export type ListItemRow = { id: string; position: string; listed_at: Date; type: 'movie' | 'show'; movie_db_id: number };

/** One page of a list's items in list order, of one type or all; with the number of items so filtered. */
export async function listItemPage(
  em: EntityManager,
  listId: string,
  itemCount: number,
  type: 'movie' | 'show' | null,
  offset: number,
  limit: number,
): Promise<{ rows: ListItemRow[]; total: number }> {
  const items = db(em)
    .selectFrom('list_item as i')
    .innerJoin('title as t', 't.id', 'i.title_id')
    .where('i.list_id', '=', listId)
    .$if(type !== null, (q) => q.where('t.type', '=', type!));
  const rows = await items
    .select(['i.id', 'i.position', 'i.added_at as listed_at', 't.type', 't.movie_db_id'])
    .orderBy('i.position')
    .orderBy('i.id')
    .offset(offset)
    .limit(limit)
    .execute();
  // The list keeps its item count; only a type filter counts (a list holds at most 10,000 items).
  const total = type === null ? itemCount : (await items.select((eb) => eb.cast<number>(eb.fn.countAll(), 'integer').as('n')).executeTakeFirstOrThrow()).n;
  return { rows: rows.map((r) => ({ ...r, id: String(r.id), position: String(r.position) })), total };
}

/** The list's items holding these titles (catalog row ids): title id -> item id. */
export async function itemsOfTitles(em: EntityManager, listId: string, titleIds: readonly string[]): Promise<Map<string, string>> {
  if (titleIds.length === 0) return new Map();
  const rows = await db(em)
    .selectFrom('list_item')
    .select(['id', 'title_id'])
    .where('list_id', '=', listId)
    .where((eb) => eb('title_id', '=', eb.fn.any(eb.val([...titleIds]))))
    .execute();
  return new Map(rows.map((r) => [String(r.title_id), String(r.id)]));
}
