// Recomputing every user's kept figures (`admin stats:rebuild` without --user): users in batches by id,
// each in a transaction of its own (rebuild.ts), so the service keeps serving meanwhile: a user's writes
// wait only while that user's figures are rebuilt, and a rebuild stopped halfway has rebuilt whole users.
import type { EntityManager } from '@mikro-orm/postgresql';
import { rebuildUserFigures } from './rebuild.ts';
import { userCount, userIdsAfter } from './rebuild-repository.ts';

/** Users read at a time; each is still rebuilt in its own transaction. */
const BATCH = 500;

/** Rebuilds every user's figures; `onProgress` after each user (done, and the users there were at the start). */
export async function rebuildAllUserFigures(em: EntityManager, onProgress: (done: number, total: number) => void = () => {}): Promise<number> {
  const total = await userCount(em);
  let done = 0;
  let after: string | null = null;
  for (;;) {
    const ids = await userIdsAfter(em, after, BATCH);
    if (ids.length === 0) return done;
    for (const id of ids) {
      await rebuildUserFigures(em.fork(), id);
      onProgress(++done, Math.max(total, done));
    }
    after = ids.at(-1)!;
  }
}
