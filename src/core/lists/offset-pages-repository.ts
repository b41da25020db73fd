// Pages of lists and of a list's items by offset (`offset`, `limit`, with the total), for dialects that
// page that way rather than by cursor (the Trakt-compatible facade). Each costs its page: the owner's
// lists by the list_owner index, a list's items by list_item_order, and the counts kept on the list
// where no type filter asks for another.
import type { EntityManager } from '@mikro-orm/postgresql';
import { db } from '../db/query-builder.ts';

/**
 * One page of the lists a user owns (the watchlist left out), oldest first; `publicOnly` for a reader
 * who is not the owner. With the number of such lists.
 */
export async function ownedListPageAt(em: EntityManager, ownerId: string, publicOnly: boolean, offset: number, limit: number): Promise<{ ids: string[]; total: number }> {
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

type OffsetItemRow = { id: string; position: string; listed_at: Date; type: 'movie' | 'show'; movie_db_id: number };

/** One page of a list's items in list order, of one type or all; with the number of items so filtered. */
export async function itemPageAt(
  em: EntityManager,
  listId: string,
  itemCount: number,
  type: 'movie' | 'show' | null,
  offset: number,
  limit: number,
): Promise<{ rows: OffsetItemRow[]; total: number }> {
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
