// Trakt's paused playback (GET/DELETE /sync/playback) over Continue Watching, and
// GET /sync/last_activities over the change feed (activities.ts). Paused playback is the user's
// Continue Watching: `id` is the entry's id (what DELETE takes), `paused_at` its last update, `progress`
// in percent. Continue Watching keeps one entry per title (a show's holds its episode in progress), so a
// show has one paused episode at most, and entries expire 30 days after their last playback.
import { resolveEpisodes, resolveTitles, type ResolvedTitle } from '../../core/catalog/resolve.ts';
import { invalidRequest, notFound } from '../../core/errors.ts';
import type { ContinueWatchingItem } from '../../core/playback/schemas.ts';
import { lastActivities } from '../activities.ts';
import { standardTitle } from '../ids.ts';
import { asksForPage, pageOf, paginationHeaders } from '../paging.ts';
import type { TraktCall, TraktRoute } from '../route.ts';
import { traktEpisode } from '../scrobble-items.ts';

/** Continue Watching pages read for one answer at most (its entries expire, so a user has few). */
const MAX_PAGES = 10;
const PAGE = 100;

const TYPES = { movies: 'movie', episodes: 'show' } as const;

function dateParam(text: string | undefined, name: string): number | null {
  if (text === undefined || text === '') return null;
  const t = Date.parse(text);
  if (Number.isNaN(t)) throw invalidRequest(`${name} must be a date`);
  return t;
}

/** The user's Continue Watching entries of the type and updated in the range, newest first. */
async function pausedEntries(call: TraktCall, type: 'movie' | 'show' | null, from: number | null, to: number | null): Promise<ContinueWatchingItem[]> {
  const items: ContinueWatchingItem[] = [];
  let cursor: string | undefined;
  for (let n = 0; n < MAX_PAGES; n++) {
    const page = await call.procedures.platform.playback.continueWatching({ limit: PAGE, ...(cursor ? { cursor } : {}) });
    for (const item of page.items) {
      const at = Date.parse(item.updatedAt);
      if ((type === null || item.type === type) && (from === null || at >= from) && (to === null || at <= to)) items.push(item);
    }
    cursor = page.nextCursor;
    if (!cursor) break;
  }
  return items;
}

async function playback(call: TraktCall) {
  const typeParam = call.params.type;
  if (typeParam !== undefined && !(typeParam in TYPES)) throw notFound(`Playback type ${typeParam}`);
  const type = typeParam === undefined ? null : TYPES[typeParam as keyof typeof TYPES];
  let items = await pausedEntries(call, type, dateParam(call.query.start_at, 'start_at'), dateParam(call.query.end_at, 'end_at'));
  const headers: Record<string, string> = {};
  if (asksForPage(call.query)) {
    const page = pageOf(call.query);
    Object.assign(headers, paginationHeaders(page, items.length));
    items = items.slice(page.offset, page.offset + page.limit);
  }
  // One lookup for the page's titles, one for its episodes.
  const titles = await resolveTitles(call.em, items.map((i) => ({ type: i.type, movieDbId: i.movieDbId })));
  const episodeRefs = items.flatMap((i, idx) => (i.type === 'show' && i.season !== null && i.episode !== null && titles[idx] ? [{ idx, ref: { titleId: titles[idx].id, season: i.season, episode: i.episode } }] : []));
  const episodes = await resolveEpisodes(call.em, episodeRefs.map((e) => e.ref));
  const episodeAt = new Map(episodeRefs.map((e, n) => [e.idx, episodes[n] ?? null]));
  const body = items.flatMap((item, idx): Record<string, unknown>[] => {
    const title = titles[idx] as ResolvedTitle | null;
    if (!title) return [];
    const common = { progress: Math.round(item.progress * 10_000) / 100, paused_at: item.updatedAt, id: item.id };
    if (item.type === 'movie') return [{ ...common, type: 'movie', movie: standardTitle(title) }];
    const episode = episodeAt.get(idx);
    return episode ? [{ ...common, type: 'episode', episode: traktEpisode(episode), show: standardTitle(title) }] : [];
  });
  return { body, headers };
}

async function removePlayback(call: TraktCall) {
  if (!/^\d{1,15}$/.test(call.params.id ?? '')) throw notFound('Playback item');
  await call.procedures.platform.playback.dismissContinueWatching({ id: Number(call.params.id) });
  return {};
}

export const syncPlaybackRoutes: TraktRoute[] = [
  {
    method: 'GET',
    path: '/sync/last_activities',
    summary: 'The latest activity timestamps of the user (from the change feed)',
    tag: 'Sync',
    auth: 'required',
    handle: async (call) => ({ body: await lastActivities(call.em, call.actor!.userId, call.actor!.scopes) }),
  },
  { method: 'GET', path: '/sync/playback', summary: 'Paused playback (Continue Watching)', tag: 'Sync', auth: 'required', paged: true, statuses: [400], handle: playback },
  { method: 'GET', path: '/sync/playback/:type', summary: 'Paused playback of movies or episodes (Continue Watching)', tag: 'Sync', auth: 'required', paged: true, statuses: [400], handle: playback },
  { method: 'DELETE', path: '/sync/playback/:id', summary: 'Remove a paused playback item (dismiss it from Continue Watching)', tag: 'Sync', auth: 'required', statuses: [204], handle: removePlayback },
];
