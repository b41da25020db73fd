// The list a Trakt path names among its owner's lists: by its id, or by the slug of its name. The
// statements are core/lists' (repository.ts); the slug is Trakt's (list-present.ts). Who may see the
// list is still core/lists/access.ts's decision (the routes call it).
import type { EntityManager } from '@mikro-orm/postgresql';
import { isRowId } from '../core/catalog/title-keys.ts';
import { ownedListById, ownedListsNamedLike } from '../core/lists/repository.ts';
import { listSlug } from './list-present.ts';

/** At most this many lists whose name has the slug's words are compared with the slug. */
const SLUG_CANDIDATES = 50;

/**
 * The id of the list of `ownerId` that `idOrSlug` names (its id, or the slug of its name; two lists with
 * one slug: the older), or null. The watchlist is never named here.
 */
export async function ownedListId(em: EntityManager, ownerId: string, idOrSlug: string): Promise<string | null> {
  if (isRowId(idOrSlug)) {
    const row = await ownedListById(em, ownerId, idOrSlug);
    if (row) return String(row.id);
  }
  if (!/^[a-z0-9]+(?:-[a-z0-9]+)*$/.test(idOrSlug) || idOrSlug.length > 300) return null;
  // The slug's words, in order, narrow the candidates in SQL; the slug itself decides (accents and
  // punctuation fold in listSlug the way they cannot in a LIKE pattern).
  const pattern = `%${idOrSlug.split('-').join('%')}%`;
  const rows = await ownedListsNamedLike(em, ownerId, pattern, SLUG_CANDIDATES);
  const row = rows.find((r) => listSlug(r.name) === idOrSlug);
  return row ? String(row.id) : null;
}
