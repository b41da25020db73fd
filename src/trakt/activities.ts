// Trakt's GET /sync/last_activities from the service's change feed (change_log): each timestamp is the
// time of the user's latest change of the matching resource, so anything written through the platform
// API or this facade moves it. The read is bounded: the newest WINDOW changes of each resource
// (activities-repository.ts), never the user's whole history.
//
// Within a resource the records say what they are about (history and playback: `type`; ratings and
// favourites: `scope`; show statuses: `showStatus`). A delete carries no record, so it moves every
// timestamp of its resource; and a kind with no change among the newest WINDOW of a full window takes
// the resource's newest time. Both over-report (a client syncs once more), never under-report (a client
// never misses a change). Known over-reports: the watchlist and lists timestamps move with any list.
// Timestamps the service has no source for (comments, hidden items, notes, saved filters, follows,
// collaborations...) are the epoch, 1970-01-01T00:00:00.000Z: a constant, so no client syncs them.
import type { EntityManager } from '@mikro-orm/postgresql';
import { readableResources } from '../core/changes/resources.ts';
import { newestChanges, type ActivityRow } from '../core/changes/newest-repository.ts';

const WINDOW = 50;
const EPOCH = '1970-01-01T00:00:00.000Z';

const RESOURCES = ['history', 'ratings', 'collection', 'favourites', 'show_status', 'playback', 'lists', 'list_items', 'list_likes', 'profile', 'preferences'] as const;
type Resource = (typeof RESOURCES)[number];

type Match = (r: ActivityRow) => boolean;
const any: Match = () => true;
const typeIs = (t: string): Match => (r) => r.type === t;
const scopeIs = (...s: string[]): Match => (r) => r.scope !== null && s.includes(r.scope);
const statusIs = (s: string): Match => (r) => r.status === s;

/** The user's last activities, from the resources the token may read (the change feed's rule; the rest stay at the epoch). */
export async function lastActivities(em: EntityManager, userId: string, scopes: ReadonlySet<string>) {
  const readable = new Set<string>(readableResources(scopes));
  const rows = await newestChanges(em, userId, RESOURCES.filter((r) => readable.has(r)), WINDOW);
  const byResource = new Map<string, ActivityRow[]>();
  for (const r of rows) byResource.set(r.resource, [...(byResource.get(r.resource) ?? []), r]);
  for (const list of byResource.values()) list.sort((a, b) => (BigInt(b.id) > BigInt(a.id) ? 1 : -1));
  const seen: number[] = [];

  /** The latest change of the resources that matches (a delete always matches), as Trakt's timestamp. */
  const at = (resources: readonly Resource[], match: Match = any): string => {
    let best: number | null = null;
    for (const resource of resources) {
      const list = byResource.get(resource) ?? [];
      const hit = list.find((r) => r.op === 'delete' || match(r)) ?? (list.length === WINDOW ? list[0] : undefined);
      if (hit && (best === null || hit.changed_at.getTime() > best)) best = hit.changed_at.getTime();
    }
    if (best === null) return EPOCH;
    seen.push(best);
    return new Date(best).toISOString();
  };

  const lists = at(['lists', 'list_items']);
  const body = {
    all: EPOCH,
    movies: {
      watched_at: at(['history'], typeIs('movie')),
      collected_at: at(['collection'], typeIs('movie')),
      rated_at: at(['ratings'], scopeIs('title')),
      watchlisted_at: lists,
      favorited_at: at(['favourites'], scopeIs('title')),
      commented_at: EPOCH,
      paused_at: at(['playback'], typeIs('movie')),
      hidden_at: EPOCH,
    },
    episodes: {
      watched_at: at(['history'], typeIs('show')),
      collected_at: at(['collection'], typeIs('show')),
      rated_at: at(['ratings'], scopeIs('episode')),
      watchlisted_at: EPOCH,
      commented_at: EPOCH,
      paused_at: at(['playback'], typeIs('show')),
    },
    shows: {
      rated_at: at(['ratings'], scopeIs('series')),
      watchlisted_at: lists,
      favorited_at: at(['favourites'], scopeIs('series')),
      commented_at: EPOCH,
      hidden_at: EPOCH,
      dropped_at: at(['show_status'], statusIs('dropped')),
    },
    seasons: { rated_at: at(['ratings'], scopeIs('season')), watchlisted_at: EPOCH, commented_at: EPOCH, hidden_at: EPOCH },
    comments: { liked_at: EPOCH, reacted_at: EPOCH, blocked_at: EPOCH },
    lists: { liked_at: at(['list_likes']), reacted_at: EPOCH, updated_at: lists, commented_at: EPOCH },
    watchlist: { updated_at: lists },
    favorites: { updated_at: at(['favourites']) },
    collaborations: { updated_at: EPOCH },
    account: { settings_at: at(['profile', 'preferences']), followed_at: EPOCH, following_at: EPOCH, pending_at: EPOCH, requested_at: EPOCH },
    saved_filters: { updated_at: EPOCH },
    notes: { updated_at: EPOCH },
  };
  if (seen.length) body.all = new Date(Math.max(...seen)).toISOString();
  return body;
}
