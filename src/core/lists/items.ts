// Writing a list's items. Callers hold the list's row lock (access.ts) so positions and the counts,
// recomputed from the items at the end of each write, are exact.
import type { EntityManager } from '@mikro-orm/postgresql';
import { query } from '../db/sql.ts';
import { ApiError, invalidRequest, notFound } from '../errors.ts';

/** The most items one list holds (a dynamic list's `size` is far below it). */
export const MAX_LIST_ITEMS = 10_000;

/**
 * Recomputes item_count, the breakdown per category and the preview posters (list_preview_posters, the
 * migration's one definition of them) from the items themselves.
 */
export async function refreshCounts(tx: EntityManager, listId: string): Promise<void> {
  await query(tx, {
    text: `update list l set item_count = c.n, movie_count = c.movies, show_count = c.shows, anime_count = c.anime,
        preview_posters = list_preview_posters(l.id), updated_at = now()
      from (select count(*)::int as n,
          count(*) filter (where t.category = 'movie')::int as movies,
          count(*) filter (where t.category = 'show')::int as shows,
          count(*) filter (where t.category = 'anime')::int as anime
        from list_item li join title t on t.id = li.title_id where li.list_id = $1) c
      where l.id = $1`,
    params: [listId],
  });
}

export type AddResult = { titleId: string; status: 'added' | 'existing'; id: string };

/**
 * Appends titles not yet in the list, in the given order; a title already there is `existing` (no
 * duplicate, no error). 409 `conflict` when the list would pass MAX_LIST_ITEMS.
 */
export async function addTitles(tx: EntityManager, listId: string, titleIds: readonly string[], addedBy: string | null): Promise<AddResult[]> {
  const unique = [...new Set(titleIds)];
  const [{ existing, total } = { existing: 0, total: 0 }] = await query<{ existing: number; total: number }>(tx, {
    text: `select count(*) filter (where title_id = any($2::bigint[]))::int as existing, count(*)::int as total from list_item where list_id = $1`,
    params: [listId, unique],
  });
  if (total + unique.length - existing > MAX_LIST_ITEMS) {
    throw new ApiError('conflict', `A list holds at most ${MAX_LIST_ITEMS} items; this one has ${total}`);
  }
  const rows = await query<{ title_id: string; id: string; inserted: boolean }>(tx, {
    text: `with input as (select * from unnest($2::bigint[]) with ordinality as r(title_id, ord)),
      base as (select coalesce(max(position), 0) as p from list_item where list_id = $1),
      ins as (
        insert into list_item (list_id, title_id, position, added_by)
        select $1, i.title_id, base.p + i.ord, $3 from input i cross join base
        where not exists (select 1 from list_item x where x.list_id = $1 and x.title_id = i.title_id)
        order by i.ord
        on conflict (list_id, title_id) do nothing
        returning id, title_id
      )
      select i.title_id, coalesce(ins.id, x.id) as id, ins.id is not null as inserted
      from input i left join ins on ins.title_id = i.title_id left join list_item x on x.list_id = $1 and x.title_id = i.title_id
      order by i.ord`,
    params: [listId, unique, addedBy],
  });
  const byTitle = new Map(rows.map((r) => [String(r.title_id), r]));
  if (rows.some((r) => r.inserted)) await refreshCounts(tx, listId);
  return titleIds.map((titleId) => {
    const r = byTitle.get(titleId)!;
    return { titleId, status: r.inserted ? 'added' : 'existing', id: String(r.id) };
  });
}

/** Removes items by id; the ids actually removed. */
export async function removeItems(tx: EntityManager, listId: string, itemIds: readonly string[]): Promise<string[]> {
  const rows = await query<{ id: string }>(tx, {
    text: `delete from list_item where list_id = $1 and id = any($2::bigint[]) returning id`,
    params: [listId, itemIds],
  });
  if (rows.length) await refreshCounts(tx, listId);
  return rows.map((r) => String(r.id));
}

/** Removes the item holding a title; its id, or null when the title was not in the list. */
export async function removeTitle(tx: EntityManager, listId: string, titleId: string): Promise<string | null> {
  const rows = await query<{ id: string }>(tx, { text: `delete from list_item where list_id = $1 and title_id = $2 returning id`, params: [listId, titleId] });
  if (rows.length) await refreshCounts(tx, listId);
  return rows[0] ? String(rows[0].id) : null;
}

/**
 * Moves the named items to the front, in the order given; the others follow in their current order.
 * Every id must be an item of this list, named once (400 otherwise).
 */
export async function reorderItems(tx: EntityManager, listId: string, itemIds: readonly string[]): Promise<void> {
  if (new Set(itemIds).size !== itemIds.length) throw invalidRequest('itemIds: an item is named more than once');
  const [found] = await query<{ n: number }>(tx, { text: `select count(*)::int as n from list_item where list_id = $1 and id = any($2::bigint[])`, params: [listId, itemIds] });
  if ((found?.n ?? 0) !== itemIds.length) throw notFound('An item named in itemIds');
  await query(tx, {
    text: `with given as (select * from unnest($2::bigint[]) with ordinality as g(id, ord)),
      ranked as (
        select li.id, row_number() over (order by g.ord nulls last, li.position, li.id) as pos
        from list_item li left join given g on g.id = li.id where li.list_id = $1
      )
      update list_item li set position = r.pos from ranked r where r.id = li.id and li.position <> r.pos`,
    params: [listId, itemIds],
  });
  // The preview shows the first items in the new order.
  await query(tx, { text: `update list set preview_posters = list_preview_posters(id), updated_at = now() where id = $1`, params: [listId] });
}

export type Replaced = { added: string[]; removed: string[] };

/** Makes the items exactly these titles in this order (dynamic and external lists). */
export async function replaceItems(tx: EntityManager, listId: string, titleIds: readonly string[]): Promise<Replaced> {
  const unique = [...new Set(titleIds)].slice(0, MAX_LIST_ITEMS);
  const removed = await query<{ id: string }>(tx, {
    text: `delete from list_item where list_id = $1 and not (title_id = any($2::bigint[])) returning id`,
    params: [listId, unique],
  });
  const added = await query<{ id: string }>(tx, {
    text: `insert into list_item (list_id, title_id, position)
      select $1, r.title_id, r.ord from unnest($2::bigint[]) with ordinality as r(title_id, ord)
      on conflict (list_id, title_id) do nothing returning id`,
    params: [listId, unique],
  });
  await query(tx, {
    text: `update list_item li set position = r.ord from unnest($2::bigint[]) with ordinality as r(title_id, ord)
      where li.list_id = $1 and li.title_id = r.title_id and li.position <> r.ord`,
    params: [listId, unique],
  });
  await refreshCounts(tx, listId);
  return { added: added.map((r) => String(r.id)), removed: removed.map((r) => String(r.id)) };
}
