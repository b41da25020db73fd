// Featured lists are chosen by an operator (admin CLI `list:feature` / `list:unfeature`). Only a public
// list can be featured; a featured list made private, or whose owner's profile is made private, stops
// showing until both are public again (featuredListsOf, repository.ts).
import type { EntityManager } from '@mikro-orm/postgresql';
import { transaction } from '../db/transaction.ts';
import { ApiError, notFound } from '../errors.ts';
import { recordListWrite } from './changes.ts';
import { lockList, setFeaturedFlag } from './repository.ts';

export async function setFeatured(em: EntityManager, listId: string, featured: boolean): Promise<{ id: number; isFeatured: boolean }> {
  return transaction(em, async (tx) => {
    const row = await lockList(tx, listId);
    if (!row) throw notFound(`List ${listId}`);
    if (featured && !row.is_public) throw new ApiError('conflict', `List ${listId} is private; only public lists can be featured`);
    await setFeaturedFlag(tx, String(row.id), featured);
    await recordListWrite(tx, String(row.id));
    return { id: Number(row.id), isFeatured: featured };
  });
}
