// Expired OAuth artifacts (codes, tokens, sessions, interactions, device codes) are ignored on read;
// this deletes them so the table does not grow without end.
import type { EntityManager } from '@mikro-orm/postgresql';
import { query } from '../db/sql.ts';

export async function sweepExpiredArtifacts(em: EntityManager): Promise<number> {
  const rows = await query(em, { text: `delete from oauth_artifact where expires_at < now() returning 1`, params: [] });
  return rows.length;
}
