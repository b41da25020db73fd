// Notification preferences per kind and channel. A kind without a stored row is on for every channel;
// a change stores the row (upsert) and records a `notification_preferences` change with the kind's
// whole preference. `inApp` off: recordNotification records nothing of that kind for the user.
import type { EntityManager } from '@mikro-orm/postgresql';
import { recordChanges, type Change } from '../changes/record.ts';
import { query } from '../db/sql.ts';
import { transaction } from '../db/transaction.ts';
import { NOTIFICATION_KINDS, type NotificationKind } from './kinds.ts';
import type { Preferences, PreferencesPatch } from './schemas.ts';

type Row = { kind: NotificationKind; in_app: boolean; push: boolean };

function toPreferences(rows: Row[]): Preferences {
  const stored = new Map(rows.map((r) => [r.kind, r]));
  const entries = NOTIFICATION_KINDS.map((kind) => {
    const r = stored.get(kind);
    return [kind, { inApp: r?.in_app ?? true, push: r?.push ?? true }] as const;
  });
  return Object.fromEntries(entries) as Preferences;
}

export async function getPreferences(em: EntityManager, userId: string): Promise<Preferences> {
  const rows = await query<Row>(em, { text: `select kind, in_app, push from notification_preference where user_id = $1`, params: [userId] });
  return toPreferences(rows);
}

/** Changes the kinds and channels given; returns every kind's preference after the change. */
export function updatePreferences(em: EntityManager, userId: string, patch: PreferencesPatch): Promise<Preferences> {
  return transaction(em, async (tx) => {
    const changes: Change[] = [];
    for (const kind of NOTIFICATION_KINDS) {
      const p = patch[kind];
      if (!p || (p.inApp === undefined && p.push === undefined)) continue;
      // Absent channels keep their stored value (or the default, on).
      const [row] = await query<Row>(tx, {
        text: `insert into notification_preference (user_id, kind, in_app, push) values ($1, $2, coalesce($3, true), coalesce($4, true))
          on conflict (user_id, kind) do update set in_app = coalesce($3, notification_preference.in_app), push = coalesce($4, notification_preference.push), updated_at = now()
          returning kind, in_app, push`,
        params: [userId, kind, p.inApp ?? null, p.push ?? null],
      });
      changes.push({ resource: 'notification_preferences', resourceId: kind, op: 'upsert', data: { kind, inApp: row!.in_app, push: row!.push } });
    }
    await recordChanges(tx, userId, changes);
    return getPreferences(tx, userId);
  });
}
