// Expired OAuth artifacts (codes, tokens, sessions, interactions, device codes) are ignored on read;
// this deletes them so the table does not grow without end.
import type { EntityManager } from '@mikro-orm/postgresql';
import { deleteExpiredArtifacts } from './repository.ts';

export async function sweepExpiredArtifacts(em: EntityManager): Promise<number> {
  return deleteExpiredArtifacts(em);
}
