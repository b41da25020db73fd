// Trakt's history read (GET /sync/history/{type?}/{id?} and /users/{id}/history/{type?}/{item_id?}):
// entries newest first in numbered pages with X-Pagination headers. The platform's history procedure
// pages by cursor, so page N would read every earlier page: this reads the page with OFFSET over the
// history index and counts the entries from the kept day figures (core/library/history-offset-repository.ts);
// the routes carry the procedure's scope, history:read.
import { episodesByRowId, seasonsByRowId } from '../core/catalog/episode-keys.ts';
import { invalidRequest, notFound } from '../core/errors.ts';
import { countHistoryEntries, historyEntriesAt, type NumberedHistoryFilters } from '../core/library/history-offset-repository.ts';
import { titleOfPathId } from './ids.ts';
import { pageEpisodes, pageTitles, titleField, traktEpisode } from './library-present.ts';
import { pageOf, paginationHeaders } from './paging.ts';
import type { TraktAnswer, TraktCall } from './route.ts';

/** An ISO 8601 date-time of the query (`start_at`, `end_at`), or undefined. */
function dateParam(query: Record<string, string | undefined>, name: string): Date | undefined {
  const text = query[name];
  if (text === undefined || text === '') return undefined;
  const d = new Date(text);
  if (!/^\d{4}-\d{2}-\d{2}/.test(text) || Number.isNaN(d.getTime())) throw invalidRequest(`${name} must be an ISO 8601 date-time`);
  return d;
}

/** The filters a path's type and id name (404 for another type or an id that names nothing). */
async function pathFilters(call: TraktCall, type: string | undefined, id: string | undefined): Promise<NumberedHistoryFilters> {
  if (type === undefined) return {};
  if (type === 'movies' || type === 'shows') {
    const kind = type === 'movies' ? 'movie' : 'show';
    if (id === undefined) return { type: kind };
    const title = await titleOfPathId(call.em, kind, id);
    if (!title) throw notFound(`${kind === 'movie' ? 'Movie' : 'Show'} "${id}"`);
    return { type: kind, titleId: title.id };
  }
  if (type === 'seasons' || type === 'episodes') {
    if (id === undefined) return { type: 'show' };
    if (type === 'seasons') {
      const [season] = await seasonsByRowId(call.em, [id]);
      if (!season) throw notFound(`Season "${id}"`);
      return { type: 'show', titleId: season.titleId, season: season.season };
    }
    const [episode] = await episodesByRowId(call.em, [id]);
    if (!episode) throw notFound(`Episode "${id}"`);
    return { type: 'show', titleId: episode.titleId, episodeId: episode.id };
  }
  throw notFound(`History of "${type}"`);
}

/** Trakt's `action`: a watch the player recorded is a scrobble; a logged or synced one a watch. */
const actionOf = (source: string) => (source === 'playback' ? 'scrobble' : 'watch');

export async function historyAnswer(call: TraktCall, userId: string, type: string | undefined, id: string | undefined): Promise<TraktAnswer> {
  const filters: NumberedHistoryFilters = { ...(await pathFilters(call, type, id)), startAt: dateParam(call.query, 'start_at'), endAt: dateParam(call.query, 'end_at') };
  const page = pageOf(call.query);
  const [rows, itemCount] = [await historyEntriesAt(call.em, userId, filters, page.offset, page.limit), await countHistoryEntries(call.em, userId, filters)];
  const titleOf = await pageTitles(call.em, rows.map((r) => ({ type: r.type, movieDbId: r.movie_db_id })));
  const episodes = rows.flatMap((r) => (r.episode_id !== null && r.season_number !== null && r.episode_number !== null ? [{ titleId: String(r.title_id), season: r.season_number, episode: r.episode_number }] : []));
  const episodeOf = await pageEpisodes(call.em, episodes);
  const body = rows.flatMap((r) => {
    const title = titleOf({ type: r.type, movieDbId: r.movie_db_id });
    if (!title) return [];
    const base = { id: Number(r.id), watched_at: new Date(r.watched_at).toISOString(), action: actionOf(r.source) };
    if (r.episode_id === null || r.season_number === null || r.episode_number === null) return [{ ...base, type: 'movie', ...titleField(title) }];
    const episode = traktEpisode(r.season_number, r.episode_number, episodeOf({ titleId: String(r.title_id), season: r.season_number, episode: r.episode_number }));
    return [{ ...base, type: 'episode', episode, ...titleField(title) }];
  });
  return { body, headers: paginationHeaders(page, itemCount) };
}
