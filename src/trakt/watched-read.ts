// Trakt's watched read (GET /sync/watched/{movies|shows}, /users/{id}/watched/{movies|shows}): per title
// its plays and latest watch, from the kept per-title figures (one row per title, never the history),
// and per show its watched episodes' plays, from that show's entries (bounded by the shows answered).
// Trakt answers every title; a client may still ask for a page (`page`, `limit`), counted from the kept
// totals. No procedure answers per-title figures: the routes carry history:read, the scope of the
// history procedures.
import { notFound } from '../core/errors.ts';
import { airedEpisodeCounts, watchedEpisodes, watchedTitleCount, watchedTitles } from '../core/library/watched-repository.ts';
import { standardTitle } from './ids.ts';
import { pageTitles } from './library-present.ts';
import { asksForPage, pageOf, paginationHeaders } from './paging.ts';
import type { TraktAnswer, TraktCall } from './route.ts';

const iso = (d: Date | string) => new Date(d).toISOString();

/** Whether `extended` (comma-separated) names a value. */
export const extendedHas = (query: Record<string, string | undefined>, value: string): boolean => (query.extended ?? '').split(',').includes(value);

type Seasons = { number: number; episodes: { number: number; plays: number; last_watched_at: string }[] }[];

export async function watchedAnswer(call: TraktCall, userId: string, type: string): Promise<TraktAnswer> {
  if (type !== 'movies' && type !== 'shows') throw notFound(`Watched "${type}"`);
  const kind = type === 'movies' ? 'movie' : 'show';
  const paged = asksForPage(call.query);
  const page = pageOf(call.query);
  const rows = await watchedTitles(call.em, userId, kind, paged ? page : undefined);
  const headers = paged ? paginationHeaders(page, await watchedTitleCount(call.em, userId, kind)) : undefined;
  const titleOf = await pageTitles(call.em, rows.map((r) => ({ type: r.type, movieDbId: r.movie_db_id })));
  const base = (r: (typeof rows)[number]) => ({ plays: r.watches, last_watched_at: iso(r.last_watched_at), last_updated_at: iso(r.last_watched_at), reset_at: null });
  if (kind === 'movie') {
    const body = rows.flatMap((r) => {
      const t = titleOf({ type: 'movie', movieDbId: r.movie_db_id });
      return t ? [{ ...base(r), movie: standardTitle(t) }] : [];
    });
    return { body, ...(headers ? { headers } : {}) };
  }
  const showIds = rows.map((r) => String(r.title_id));
  const aired = new Map((await airedEpisodeCounts(call.em, showIds)).map((a) => [String(a.title_id), a.aired]));
  const seasons = new Map<string, Seasons>();
  if (!extendedHas(call.query, 'noseasons')) {
    for (const e of await watchedEpisodes(call.em, userId, showIds)) {
      if (e.season_number === null || e.episode_number === null) continue;
      const show = seasons.get(String(e.title_id)) ?? [];
      seasons.set(String(e.title_id), show);
      let season = show.at(-1);
      if (season?.number !== e.season_number) show.push((season = { number: e.season_number, episodes: [] }));
      season.episodes.push({ number: e.episode_number, plays: e.plays, last_watched_at: iso(e.last_watched_at!) });
    }
  }
  const body = rows.flatMap((r) => {
    const t = titleOf({ type: 'show', movieDbId: r.movie_db_id });
    if (!t) return [];
    const show = { ...standardTitle(t), aired_episodes: aired.get(String(r.title_id)) ?? 0 };
    return [{ ...base(r), show, ...(extendedHas(call.query, 'noseasons') ? {} : { seasons: seasons.get(String(r.title_id)) ?? [] }) }];
  });
  return { body, ...(headers ? { headers } : {}) };
}
