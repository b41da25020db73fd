// Applying the records only this service's own export carries (records.ts: OwnKinds) for one user, a
// batch in one transaction, each record through the write paths the API uses (so each change is in the
// change feed) and each in a savepoint of its own (a record the database refuses is `skipped` with the
// reason, the others go in). Applying a batch twice changes nothing the second time: every write first
// looks at what is there (a favourite already marked, a list of the same name, the same copy in the
// collection, preferences already equal) and leaves it.
import type { EntityManager } from '@mikro-orm/postgresql';
import { resolveEpisodes, type ResolvedTitle } from '../catalog/resolve.ts';
import { resolveImportTitles, stateTitle } from './titles.ts';
import { addImportedCollectionItem } from '../collection/write.ts';
import { seasonKnown } from '../collection/repository.ts';
import { transaction } from '../db/transaction.ts';
import { ApiError } from '../errors.ts';
import { libraryItems } from '../library/library-items.ts';
import { MOVIE_STATUSES, setFavourite, writeShowStatus } from '../library/title-state-write.ts';
import { recordListWrite } from '../lists/changes.ts';
import { addTitles } from '../lists/items.ts';
import { setItemsAddedAt } from '../lists/item-repository.ts';
import { insertList, lockOwnedListByName, updateListSettings } from '../lists/repository.ts';
import { dynamicFilters } from '../lists/schemas.ts';
import { ensureWatchlist } from '../lists/watchlist.ts';
import { getPreferences as notificationPreferences, updatePreferences as updateNotificationPreferences } from '../notifications/preferences.ts';
import type { NotificationKind } from '../notifications/kinds.ts';
import { tooOldForContinueWatching, upsertProgress } from '../playback/continue-watching.ts';
import { lockUserPlayback } from '../playback/repository.ts';
import { readPreferences, updatePreferences } from '../profile/preferences.ts';
import { readProfile, updateProfile } from '../profile/profile.ts';
import type { ProfileUpdate } from '../profile/settings-schemas.ts';
import type { ImportTitleRef, OwnRecord, SourceRow } from './records.ts';

export type OwnOutcome = {
  at: SourceRow;
  /** `inserted`/`updated`: imported; `unchanged`: already there; `unmatched`: the title (or its season, episode) is not in the catalog; `skipped`: refused, see `reason`. */
  status: 'inserted' | 'updated' | 'unchanged' | 'unmatched' | 'skipped';
  reason: string | null;
};

export type OwnApplyOptions = {
  /** The app the import runs for, written where a row keeps one (Continue Watching); default `import`. */
  clientId?: string | undefined;
};

type Resolved = Map<ImportTitleRef, ResolvedTitle | null>;
type Ctx = { tx: EntityManager; userId: string; clientId: string; titles: Resolved };
const done = (at: SourceRow, status: OwnOutcome['status'], reason: string | null = null): OwnOutcome => ({ at, status, reason });

/** Every title the records name (list items too), in order. */
export function ownTitleRefs(records: readonly OwnRecord[]): ImportTitleRef[] {
  const refs: ImportTitleRef[] = [];
  for (const r of records) {
    if ('title' in r) refs.push(r.title);
    if (r.kind === 'own_list') for (const i of r.items) refs.push(i.title);
  }
  return refs;
}

/** Every title the batch names (list items too), resolved in one go. */
async function resolveAll(tx: EntityManager, records: readonly OwnRecord[]): Promise<Resolved> {
  const refs = ownTitleRefs(records);
  const found = await resolveImportTitles(tx, refs, 'movie');
  return new Map(refs.map((t, i) => [t, found[i] ?? null]));
}

async function applyProfile(c: Ctx, r: Extract<OwnRecord, { kind: 'own_profile' }>): Promise<OwnOutcome['status']> {
  const now = await readProfile(c.tx, c.userId);
  const want = r.profile;
  const update: ProfileUpdate = {};
  if (now.displayName !== want.display_name) update.displayName = want.display_name;
  if (now.avatarUrl !== want.avatar_url) update.avatarUrl = want.avatar_url;
  if (now.bio !== want.bio) update.bio = want.bio;
  if (now.privacy !== want.privacy) update.privacy = want.privacy;
  if (Object.keys(update).length === 0) return 'unchanged';
  await updateProfile(c.tx, c.userId, update);
  return 'updated';
}

async function applyPreferences(c: Ctx, r: Extract<OwnRecord, { kind: 'own_preferences' }>): Promise<OwnOutcome['status']> {
  const now = await readPreferences(c.tx, c.userId);
  const p = r.preferences;
  const wanted = {
    region: p.region,
    language: p.language,
    spoilers: { hideEpisodeTitles: p.spoilers.hide_episode_titles, hideOverviews: p.spoilers.hide_overviews, hideImages: p.spoilers.hide_images, hideRatings: p.spoilers.hide_ratings },
    watchedThreshold: p.watched_threshold,
  };
  if (JSON.stringify(now) === JSON.stringify(wanted)) return 'unchanged';
  await updatePreferences(c.tx, c.userId, wanted);
  return 'updated';
}

async function applyNotificationPreferences(c: Ctx, r: Extract<OwnRecord, { kind: 'own_notification_preferences' }>): Promise<OwnOutcome['status']> {
  const now = await notificationPreferences(c.tx, c.userId);
  const patch: Partial<Record<NotificationKind, { inApp: boolean; push: boolean }>> = {};
  for (const [kind, want] of Object.entries(r.preferences) as [NotificationKind, { in_app: boolean; push: boolean }][]) {
    if (now[kind].inApp !== want.in_app || now[kind].push !== want.push) patch[kind] = { inApp: want.in_app, push: want.push };
  }
  if (Object.keys(patch).length === 0) return 'unchanged';
  await updateNotificationPreferences(c.tx, c.userId, patch);
  return 'updated';
}

async function applyFavourite(c: Ctx, t: ResolvedTitle, r: Extract<OwnRecord, { kind: 'own_favourite' }>): Promise<OwnOutcome['status']> {
  const [already] = await libraryItems(c.tx, c.userId, 'favourites', { titleId: t.id });
  if (already) return 'unchanged';
  await setFavourite(c.tx, c.userId, stateTitle(t), true, new Date(r.favourited_at));
  return 'inserted';
}

async function applyShowStatus(c: Ctx, t: ResolvedTitle, r: Extract<OwnRecord, { kind: 'own_show_status' }>): Promise<OwnOutcome> {
  const at = r.at;
  if (t.type === 'movie' && !MOVIE_STATUSES.includes(r.status)) return done(at, 'skipped', `a movie's status is one of ${MOVIE_STATUSES.join(', ')}`);
  return done(at, (await writeShowStatus(c.tx, c.userId, stateTitle(t), r.status, r.set_by)) ? 'updated' : 'unchanged');
}

async function applyWatchlistItem(c: Ctx, t: ResolvedTitle, r: Extract<OwnRecord, { kind: 'own_watchlist_item' }>): Promise<OwnOutcome['status']> {
  const listId = await ensureWatchlist(c.tx, c.userId);
  const [added] = await addTitles(c.tx, listId, [t.id], c.userId);
  if (added!.status !== 'added') return 'unchanged';
  await setItemsAddedAt(c.tx, listId, [{ id: added!.id, addedAt: new Date(r.added_at) }]);
  await recordListWrite(c.tx, listId, { upsertedItems: [added!.id] });
  return 'inserted';
}

async function applyList(c: Ctx, r: Extract<OwnRecord, { kind: 'own_list' }>): Promise<OwnOutcome[]> {
  if (r.list_kind === 'external') return [done(r.at, 'skipped', 'external lists are read from files the operator manages: not imported')];
  const name = r.name.trim();
  if (name.length < 1 || name.length > 100) return [done(r.at, 'skipped', 'a list name is 1 to 100 characters')];
  let filters: Record<string, unknown> | null = null;
  if (r.list_kind === 'dynamic') {
    const parsed = dynamicFilters.safeParse(r.dynamic_filters);
    if (!parsed.success) return [done(r.at, 'skipped', 'the dynamic list\'s filters are not valid here')];
    filters = parsed.data;
  }
  const outcomes: OwnOutcome[] = [];
  let listId: string;
  let changed = false;
  const existing = await lockOwnedListByName(c.tx, c.userId, name);
  if (!existing) {
    const common = { ownerId: c.userId, name, description: r.description, isPublic: r.is_public };
    listId = await insertList(c.tx, filters ? { ...common, kind: 'dynamic', dynamicFilters: filters } : { ...common, kind: 'plain' });
    outcomes.push(done(r.at, 'inserted'));
    changed = true;
  } else {
    listId = String(existing.id);
    if (existing.kind !== r.list_kind) return [done(r.at, 'skipped', `you have a ${existing.kind} list of this name`)];
    const newFilters = filters && JSON.stringify(filters) !== JSON.stringify(existing.dynamic_filters) ? filters : null;
    if (existing.description !== r.description || existing.is_public !== r.is_public || newFilters) {
      await updateListSettings(c.tx, listId, { description: r.description, isPublic: r.is_public, dynamicFilters: newFilters });
      outcomes.push(done(r.at, 'updated'));
      changed = true;
    } else outcomes.push(done(r.at, 'unchanged'));
  }
  // A dynamic list's items come from its filters (the list-sync job computes them): its exported items are not written.
  const upserted: { id: string; addedAt: Date }[] = [];
  if (r.list_kind === 'plain') {
    const matched = r.items.flatMap((i) => {
      const t = c.titles.get(i.title);
      if (!t) outcomes.push(done(i.at, 'unmatched'));
      return t ? [{ i, t }] : [];
    });
    const added = matched.length ? await addTitles(c.tx, listId, matched.map((m) => m.t.id), c.userId) : [];
    const seen = new Set<string>();
    added.forEach((a, n) => {
      const fresh = a.status === 'added' && !seen.has(a.id);
      seen.add(a.id);
      outcomes.push(done(matched[n]!.i.at, fresh ? 'inserted' : 'unchanged'));
      if (fresh) upserted.push({ id: a.id, addedAt: new Date(matched[n]!.i.added_at) });
    });
    await setItemsAddedAt(c.tx, listId, upserted);
  }
  if (changed || upserted.length) await recordListWrite(c.tx, listId, { upsertedItems: upserted.map((u) => u.id) });
  return outcomes;
}

async function applyCollectionItem(c: Ctx, t: ResolvedTitle, r: Extract<OwnRecord, { kind: 'own_collection_item' }>): Promise<OwnOutcome['status']> {
  if (r.season !== null && (t.type !== 'show' || !(await seasonKnown(c.tx, t.id, r.season)))) return 'unmatched';
  return addImportedCollectionItem(c.tx, c.userId, { titleId: t.id, format: r.format, season: r.season, notes: r.notes, addedAt: new Date(r.added_at) });
}

async function applyContinueWatching(c: Ctx, t: ResolvedTitle, r: Extract<OwnRecord, { kind: 'own_continue_watching' }>): Promise<OwnOutcome> {
  const eventAt = Date.parse(r.updated_at);
  if (tooOldForContinueWatching(eventAt)) return done(r.at, 'skipped', 'expired: Continue Watching keeps entries 30 days');
  let episode = null;
  if (t.type === 'show') {
    if (r.season === null || r.episode === null) return done(r.at, 'unmatched');
    [episode] = await resolveEpisodes(c.tx, [{ titleId: t.id, season: r.season, episode: r.episode }]);
    if (!episode) return done(r.at, 'unmatched');
  }
  await lockUserPlayback(c.tx, c.userId);
  const outcome = await upsertProgress(c.tx, c.userId, {
    titleId: t.id,
    episodeId: episode?.id ?? null,
    season: episode?.season ?? null,
    episode: episode?.episode ?? null,
    progress: r.progress,
    positionSeconds: r.position_seconds,
    durationSeconds: r.duration_seconds,
    // The entry's playback session: the import's own, one per title.
    sessionKey: `import:${t.type}:${t.movieDbId}`,
    eventAt,
    clientId: c.clientId,
    updatedAt: new Date(eventAt),
  });
  if (outcome.kind === 'rejected') return done(r.at, 'skipped', outcome.reason === 'dismissed' ? 'dismissed here since' : 'newer playback here');
  return done(r.at, outcome.kind === 'updated' ? 'inserted' : 'unchanged');
}

async function applyOne(c: Ctx, r: OwnRecord): Promise<OwnOutcome[]> {
  switch (r.kind) {
    case 'own_profile':
      return [done(r.at, await applyProfile(c, r))];
    case 'own_preferences':
      return [done(r.at, await applyPreferences(c, r))];
    case 'own_notification_preferences':
      return [done(r.at, await applyNotificationPreferences(c, r))];
    case 'own_list':
      return applyList(c, r);
  }
  const t = c.titles.get(r.title);
  if (!t) return [done(r.at, 'unmatched')];
  switch (r.kind) {
    case 'own_favourite':
      return [done(r.at, await applyFavourite(c, t, r))];
    case 'own_show_status':
      return [await applyShowStatus(c, t, r)];
    case 'own_watchlist_item':
      return [done(r.at, await applyWatchlistItem(c, t, r))];
    case 'own_collection_item':
      return [done(r.at, await applyCollectionItem(c, t, r))];
    case 'own_continue_watching':
      return [await applyContinueWatching(c, t, r)];
  }
}

/**
 * Applies a batch of own-kind records for the user in one transaction; one outcome per record (and per
 * list item, after its list's), in order. A record the rules refuse (an ApiError: a display name too
 * long, a status a movie cannot have) is `skipped` with the reason; any other failure fails the batch.
 */
export function applyOwnRecords(em: EntityManager, userId: string, records: readonly OwnRecord[], opts: OwnApplyOptions = {}): Promise<OwnOutcome[]> {
  return transaction(em, async (tx) => {
    const c: Ctx = { tx, userId, clientId: opts.clientId ?? 'import', titles: await resolveAll(tx, records) };
    const outcomes: OwnOutcome[] = [];
    for (const r of records) {
      try {
        // A savepoint per record: a refused record leaves the transaction usable for the next.
        outcomes.push(...(await transaction(tx, (sp) => applyOne({ ...c, tx: sp }, r))));
      } catch (err) {
        if (!(err instanceof ApiError)) throw err;
        outcomes.push(done(r.at, 'skipped', err.message));
      }
    }
    return outcomes;
  });
}
