// Notification preferences per kind and channel. A kind without a stored row is on for every channel;
// a change stores the row (upsert) and records a `notification_preferences` change with the kind's
// whole preference. `inApp` off: recordNotification records nothing of that kind for the user.
import type { EntityManager } from '@mikro-orm/postgresql';
import { recordChanges, type Change } from '../changes/record.ts';
import { transaction } from '../db/transaction.ts';
import { NOTIFICATION_KINDS } from './kinds.ts';
import type { Preferences, PreferencesPatch } from './schemas.ts';
import { storedPreferences, storePreference } from './preferences-repository.ts';

function toPreferences(rows: Awaited<ReturnType<typeof storedPreferences>>): Preferences {
  const stored = new Map(rows.map((r) => [r.kind, r]));
  const entries = NOTIFICATION_KINDS.map((kind) => {
    const r = stored.get(kind);
    return [kind, { inApp: r?.in_app ?? true, push: r?.push ?? true }] as const;
  });
  return Object.fromEntries(entries) as Preferences;
}

export async function getPreferences(em: EntityManager, userId: string): Promise<Preferences> {
  return toPreferences(await storedPreferences(em, userId));
}

/** Changes the kinds and channels given; returns every kind's preference after the change. */
export function updatePreferences(em: EntityManager, userId: string, patch: PreferencesPatch): Promise<Preferences> {
  return transaction(em, async (tx) => {
    const changes: Change[] = [];
    for (const kind of NOTIFICATION_KINDS) {
      const p = patch[kind];
      if (!p || (p.inApp === undefined && p.push === undefined)) continue;
      const row = await storePreference(tx, userId, kind, p);
      changes.push({ resource: 'notification_preferences', resourceId: kind, op: 'upsert', data: { kind, inApp: row.in_app, push: row.push } });
    }
    await recordChanges(tx, userId, changes);
    return getPreferences(tx, userId);
  });
}
