// Building the export document of one user. The head (profile, preferences) is small and read at once;
// each array is read in keyset pages and handed on page by page, so a library of hundreds of thousands
// of watches is never one array in memory: `exportJson` yields the document as JSON text a page at a
// time for a response to stream, `readExport` assembles the whole object (small libraries, tests).
//
// The pages are separate statements, not one snapshot: on the embedded database a transaction held open
// while a slow client reads would stop every other query. A change made while an export runs may or may
// not be in it; every row present for the whole export is in it exactly once.
import type { EntityManager } from '@mikro-orm/postgresql';
import { readProfile } from '../profile/profile.ts';
import { readPreferences } from '../profile/preferences.ts';
import { getPreferences as notificationPreferences } from '../notifications/preferences.ts';
import {
  collectionRows,
  continueWatchingRows,
  historyRows,
  listItemRows,
  ownedListRows,
  ratingRows,
  titleStateRows,
  type TitleColumns,
} from './repository.ts';
import {
  EXPORT_ARRAY_NAMES,
  EXPORT_FORMAT,
  EXPORT_VERSION,
  type ExportArray,
  type ExportDocument,
  type ExportElement,
  type ExportHead,
  type ExportListItem,
  type ExportNotificationPreferences,
  type ExportTitle,
} from './schema.ts';

/** Rows per statement. */
const EXPORT_PAGE = 1000;
/** Lists per statement (each comes with all its items). */
const LISTS_PAGE = 20;

const iso = (d: Date | string) => new Date(d).toISOString();

function exportTitle(r: TitleColumns): ExportTitle {
  return {
    type: r.type,
    category: r.category,
    movie_db_id: r.movie_db_id,
    tv_db_id: r.tv_db_id,
    film_db_id: r.film_db_id,
    anime_db_id: r.anime_db_id,
    external_ids: (r.external_ids ?? {}) as ExportTitle['external_ids'],
    name: r.name,
    year: r.year,
  };
}

export async function exportHead(em: EntityManager, userId: string, now: Date): Promise<ExportHead> {
  const profile = await readProfile(em, userId);
  const prefs = await readPreferences(em, userId);
  const notifications = await notificationPreferences(em, userId);
  return {
    format: EXPORT_FORMAT,
    version: EXPORT_VERSION,
    exported_at: now.toISOString(),
    profile: {
      username: profile.username,
      display_name: profile.displayName,
      avatar_url: profile.avatarUrl,
      bio: profile.bio,
      privacy: profile.privacy,
      joined_at: profile.joinedAt,
    },
    preferences: {
      region: prefs.region,
      language: prefs.language,
      spoilers: {
        hide_episode_titles: prefs.spoilers.hideEpisodeTitles,
        hide_overviews: prefs.spoilers.hideOverviews,
        hide_images: prefs.spoilers.hideImages,
        hide_ratings: prefs.spoilers.hideRatings,
      },
      watched_threshold: prefs.watchedThreshold,
    },
    notification_preferences: Object.fromEntries(
      Object.entries(notifications).map(([kind, p]) => [kind, { in_app: p.inApp, push: p.push }]),
    ) as ExportNotificationPreferences,
  };
}

/** Pages of one keyset-paged statement: `read(after)` answers up to `size` rows after the key `after`. */
async function* pages<R, K>(read: (after: K | null) => Promise<R[]>, keyOf: (row: R) => K, size = EXPORT_PAGE): AsyncGenerator<R[]> {
  let after: K | null = null;
  for (;;) {
    const rows = await read(after);
    if (rows.length) yield rows;
    if (rows.length < size) return;
    after = keyOf(rows.at(-1)!);
  }
}

async function listItems(em: EntityManager, listId: string): Promise<ExportListItem[]> {
  const items: ExportListItem[] = [];
  for await (const rows of pages((after: [string, string] | null) => listItemRows(em, listId, after, EXPORT_PAGE), (r) => [String(r.position), String(r.id)] as [string, string])) {
    for (const r of rows) items.push({ title: exportTitle(r), added_at: iso(r.added_at) });
  }
  return items;
}

type Sections = { [K in ExportArray]: () => AsyncGenerator<ExportElement<K>[]> };

/** Each array of the document as pages of its elements, read when asked for. */
function sections(em: EntityManager, userId: string): Sections {
  const byId = (r: { id: string }) => r.id;
  return {
    async *history() {
      for await (const rows of pages((after: [string, string] | null) => historyRows(em, userId, after, EXPORT_PAGE), (r) => [r.position_at, String(r.id)] as [string, string])) {
        yield rows.map((r) => ({ title: exportTitle(r), season: r.season_number, episode: r.episode_number, watched_at: iso(r.watched_at), runtime_minutes: r.runtime_minutes }));
      }
    },
    async *ratings() {
      for await (const rows of pages((after: string | null) => ratingRows(em, userId, after ?? '0', EXPORT_PAGE), byId)) {
        yield rows.map((r) => ({ title: exportTitle(r), scope: r.scope, season: r.season_number, episode: r.episode_number, rating: r.rating, rated_at: iso(r.rated_at) }));
      }
    },
    async *favourites() {
      for await (const rows of pages((after: string | null) => titleStateRows(em, userId, 'favourites', after ?? '0', EXPORT_PAGE), byId)) {
        yield rows.map((r) => ({ title: exportTitle(r), favourited_at: iso(r.favourited_at!) }));
      }
    },
    async *show_statuses() {
      for await (const rows of pages((after: string | null) => titleStateRows(em, userId, 'statuses', after ?? '0', EXPORT_PAGE), byId)) {
        yield rows.map((r) => ({ title: exportTitle(r), status: r.show_status!, set_by: r.show_status_set_by ?? 'user' }));
      }
    },
    async *watchlist() {
      const [watchlist] = await ownedListRows(em, userId, true, '0', 1);
      if (!watchlist) return;
      for await (const rows of pages((after: [string, string] | null) => listItemRows(em, watchlist.id, after, EXPORT_PAGE), (r) => [String(r.position), String(r.id)] as [string, string])) {
        yield rows.map((r) => ({ title: exportTitle(r), added_at: iso(r.added_at) }));
      }
    },
    async *lists() {
      // A few lists at a time, each with all its items (a list holds at most 10,000).
      for await (const rows of pages((after: string | null) => ownedListRows(em, userId, false, after ?? '0', LISTS_PAGE), byId, LISTS_PAGE)) {
        const out = [];
        for (const l of rows) {
          out.push({
            name: l.name,
            description: l.description,
            is_public: l.is_public,
            kind: l.kind,
            dynamic_filters: l.dynamic_filters,
            external_source: l.external_source,
            items: await listItems(em, l.id),
          });
        }
        yield out;
      }
    },
    async *collection() {
      for await (const rows of pages((after: string | null) => collectionRows(em, userId, after ?? '0', EXPORT_PAGE), byId)) {
        yield rows.map((r) => ({ title: exportTitle(r), format: r.format, season: r.season, notes: r.notes, added_at: iso(r.added_at) }));
      }
    },
    async *continue_watching() {
      for await (const rows of pages((after: string | null) => continueWatchingRows(em, userId, after ?? '0', EXPORT_PAGE), byId)) {
        yield rows.map((r) => ({
          title: exportTitle(r),
          season: r.season_number,
          episode: r.episode_number,
          progress: r.progress,
          position_seconds: r.position_seconds,
          duration_seconds: r.duration_seconds,
          updated_at: iso(r.updated_at),
        }));
      }
    },
  };
}

/**
 * The document as JSON text, in pieces: the head, then each array a page at a time. Read it to the end
 * or stop early (`return()`): each page is read only when the one before has been taken.
 */
export async function* exportJson(em: EntityManager, userId: string, head: ExportHead): AsyncGenerator<string> {
  const text = JSON.stringify(head);
  // The head without its closing brace; the arrays follow as more members of the same object.
  yield text.slice(0, -1);
  const all = sections(em, userId);
  for (const name of EXPORT_ARRAY_NAMES) {
    let first = true;
    yield `,${JSON.stringify(name)}:[`;
    for await (const page of (all[name] as () => AsyncGenerator<unknown[]>)()) {
      const text = page.map((e) => JSON.stringify(e)).join(',');
      yield first ? text : `,${text}`;
      first = false;
    }
    yield ']';
  }
  yield '}\n';
}

/** The whole document as one object. */
export async function readExport(em: EntityManager, userId: string, now: Date): Promise<ExportDocument> {
  const doc: Record<string, unknown> = { ...(await exportHead(em, userId, now)) };
  const all = sections(em, userId);
  for (const name of EXPORT_ARRAY_NAMES) {
    const items: unknown[] = [];
    for await (const page of (all[name] as () => AsyncGenerator<unknown[]>)()) items.push(...page);
    doc[name] = items;
  }
  return doc as ExportDocument;
}

/** The head with every array empty: what the procedure answers when its transport streams the arrays. */
export function withoutArrays(head: ExportHead): ExportDocument {
  return { ...head, ...Object.fromEntries(EXPORT_ARRAY_NAMES.map((n) => [n, []])) } as ExportDocument;
}
