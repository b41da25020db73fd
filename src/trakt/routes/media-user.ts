// Trakt's media reads about the signed-in user: a show's watched progress and the calendar of the shows
// they follow. Both come from the platform's procedures (titles.seasons and titles.season with the
// user's watched state; titles.calendar), so the rules of "aired", "watched" and "followed" are theirs,
// and a read is bounded by the show (progress) or the window of days (calendar), never the history.
import type { Scope } from '../../core/schema/apps.ts';
import { invalidRequest } from '../../core/errors.ts';
import { episodeOf, episodeRowsByKeys, type ShowEpisodeKey } from '../../core/titles/rows-repository.ts';
import { pathTitle } from '../media-path.ts';
import { dayTime, traktEpisode, traktTitle, wantsFull } from '../media-present.ts';
import type { TraktCall, TraktRoute } from '../route.ts';

/** Watched progress is the user's watch history: without history:read the procedures would answer it blank. */
const HISTORY_READ: Scope = 'history:read';

type ProgressEpisode = { season: number; number: number; completed: boolean; last_watched_at: string | null };

/** One batch read of the episodes (their ids), presented in Trakt's form; null for a key not found. */
async function episodesFor(call: TraktCall, keys: ShowEpisodeKey[], full: boolean) {
  const rows = keys.length ? await episodeRowsByKeys(call.em, keys, full) : [];
  const byIdx = new Map(rows.map((r) => [r.idx, r]));
  return keys.map((_, i) => {
    const row = byIdx.get(i);
    return row ? { row, episode: traktEpisode(episodeOf(row), full) } : null;
  });
}

const flag = (text: string | undefined, fallback: boolean) => (text === undefined ? fallback : text === 'true');

async function watchedProgress(call: TraktCall) {
  const show = await pathTitle(call, 'show');
  const full = wantsFull(call.query);
  // Specials (season 0) are left out unless asked for; when included they count unless count_specials=false.
  const specials = flag(call.query.specials, false);
  const countSpecials = flag(call.query.count_specials, true);
  const byWatched = call.query.last_activity === 'watched';
  const { seasons } = await call.procedures.platform.titles.seasons({ id: show.movieDbId });
  const seasonsShown = seasons.filter((s) => s.airedEpisodes > 0 && (specials || s.seasonNumber > 0));
  // One read per season the show has aired (titles.season): a show's worth of episodes, whatever the user's history.
  const details = [];
  for (const s of seasonsShown) details.push(await call.procedures.platform.titles.season({ id: show.movieDbId, season: s.seasonNumber }));
  const progress = details.map((d) => {
    const episodes: ProgressEpisode[] = d.episodes
      .filter((e) => e.aired)
      .map((e) => ({ season: e.seasonNumber, number: e.episodeNumber, completed: e.watched === true, last_watched_at: e.watchedAt }));
    return { number: d.season.seasonNumber, title: d.season.name || null, episodes };
  });
  const counted = progress.filter((s) => s.number > 0 || countSpecials).flatMap((s) => s.episodes);
  const lastWatchedAt = counted.reduce<string | null>((m, e) => (e.last_watched_at && (!m || e.last_watched_at > m) ? e.last_watched_at : m), null);
  // Next and last episode: regular episodes in order. The last is the furthest one watched (or, with
  // last_activity=watched, the one watched latest); the next the first unwatched one after it.
  const regular = progress.filter((s) => s.number > 0).flatMap((s) => s.episodes);
  const watched = regular.filter((e) => e.completed);
  const last = byWatched
    ? watched.reduce<ProgressEpisode | undefined>((m, e) => (!m || (e.last_watched_at ?? '') > (m.last_watched_at ?? '') ? e : m), undefined)
    : watched.at(-1);
  const next = regular.slice(last ? regular.indexOf(last) + 1 : 0).find((e) => !e.completed);
  const keys = [last, next].flatMap((e) => (e ? [{ showMovieDbId: show.movieDbId, season: e.season, episode: e.number }] : []));
  const found = await episodesFor(call, keys, full);
  const [lastFound, nextFound] = last ? [found[0], found[1]] : [undefined, found[0]];
  return {
    aired: counted.length,
    completed: counted.filter((e) => e.completed).length,
    last_watched_at: lastWatchedAt,
    // The service keeps no re-watch resets.
    reset_at: null,
    seasons: progress.map((s) => ({
      number: s.number,
      title: s.title,
      aired: s.episodes.length,
      completed: s.episodes.filter((e) => e.completed).length,
      episodes: s.episodes.map((e) => ({ number: e.number, completed: e.completed, last_watched_at: e.last_watched_at })),
    })),
    // The service has no hidden seasons.
    hidden_seasons: [],
    next_episode: nextFound?.episode ?? null,
    last_episode: lastFound?.episode ?? null,
  };
}

/** Trakt's calendar days: 1 to 33, 7 by default. */
const MAX_DAYS = 33;
const DEFAULT_DAYS = 7;
/** The platform calendar's largest window: a longer one is read in two. */
const CALENDAR_WINDOW = 31;
const DAY_MS = 86_400_000;

async function myShows(call: TraktCall) {
  const { start_date: startDate, days: daysText } = call.params;
  if (daysText !== undefined && !/^\d{1,3}$/.test(daysText)) throw invalidRequest('days must be a whole number from 1 to 33');
  const days = daysText === undefined ? DEFAULT_DAYS : Number(daysText);
  if (days < 1 || days > MAX_DAYS) throw invalidRequest('days must be a whole number from 1 to 33');
  const full = wantsFull(call.query);
  const first = await call.procedures.platform.titles.calendar({ ...(startDate ? { startDate } : {}), days: Math.min(days, CALENDAR_WINDOW) });
  const items = [...first.items];
  if (days > CALENDAR_WINDOW) {
    const rest = new Date(Date.parse(`${first.startDate}T00:00:00Z`) + CALENDAR_WINDOW * DAY_MS).toISOString().slice(0, 10);
    items.push(...(await call.procedures.platform.titles.calendar({ startDate: rest, days: days - CALENDAR_WINDOW })).items);
  }
  const found = await episodesFor(
    call,
    items.map((i) => ({ showMovieDbId: i.show.movieDbId, season: i.season, episode: i.episode })),
    full,
  );
  return items.flatMap((i, k) => {
    const f = found[k];
    return f ? [{ first_aired: dayTime(i.airDate)!, episode: f.episode, show: traktTitle(f.row, full) }] : [];
  });
}

const calendarRoute = (path: string): TraktRoute => ({
  method: 'GET',
  path,
  summary: 'Episodes airing from start_date (default today, UTC) for days days (1-33, default 7) of the shows the user follows',
  tag: 'Calendars',
  auth: 'required',
  statuses: [400],
  handle: async (call) => ({ body: await myShows(call) }),
});

export const mediaUserRoutes: TraktRoute[] = [
  {
    method: 'GET',
    path: '/shows/:id/progress/watched',
    summary: 'The user\'s watched progress of a show: aired and completed episodes per season, the next and last episode',
    tag: 'Shows',
    auth: 'required',
    scope: HISTORY_READ,
    handle: async (call) => ({ body: await watchedProgress(call) }),
  },
  calendarRoute('/calendars/my/shows'),
  calendarRoute('/calendars/my/shows/:start_date'),
  calendarRoute('/calendars/my/shows/:start_date/:days'),
];
