// A user's newest changes of each of some resources (at most `window` of each), in one statement: when
// each kind of thing last changed (the Trakt-compatible facade's last activities). Each part is a
// backward range read of change_log_user_resource (user_id, resource, id) that stops after `window`
// rows; what each row is about comes from the record's small `data` fields (type, scope, showStatus),
// never the whole record.
import type { EntityManager } from '@mikro-orm/postgresql';
import { db } from '../db/query-builder.ts';

export type ActivityRow = { resource: string; id: string; changed_at: Date; op: 'upsert' | 'delete'; resource_id: string; type: string | null; scope: string | null; status: string | null };

/** The statement (null when no resource is asked). */
function newestChangesQuery(em: EntityManager, userId: string, resources: readonly string[], window: number) {
  const k = db(em);
  const part = (resource: string) =>
    k
      .selectFrom((eb) =>
        eb
          .selectFrom('change_log')
          .select((eb) => [
            'resource',
            'id',
            'changed_at',
            'op',
            'resource_id',
            eb.ref('data', '->>').key('type' as never).$castTo<string | null>().as('type'),
            eb.ref('data', '->>').key('scope' as never).$castTo<string | null>().as('scope'),
            eb.ref('data', '->>').key('showStatus' as never).$castTo<string | null>().as('status'),
          ])
          .where('user_id', '=', userId)
          .where('resource', '=', resource)
          .orderBy('id', 'desc')
          .limit(window)
          .as('c'),
      )
      .selectAll();
  const [first, ...rest] = resources.map(part);
  return first ? rest.reduce((q, p) => q.unionAll(p), first) : null;
}

export async function newestChanges(em: EntityManager, userId: string, resources: readonly string[], window: number): Promise<ActivityRow[]> {
  const rows = (await newestChangesQuery(em, userId, resources, window)?.execute()) ?? [];
  return rows.map((r) => ({ ...r, id: String(r.id), changed_at: new Date(r.changed_at) })) as ActivityRow[];
}
