// Trakt's media endpoints over the catalog: a movie, a show, a show's seasons, a season's episodes, an
// episode, and what is trending. All public on Trakt: they read the catalog with no user state, so they
// use core reads with no scope (the titles.* procedures need a token with profile:read, which Trakt's
// public reads do not ask for; their answers carry only the user's state besides what is read here).
// Trending is the catalog's trending procedure. Every answer is made with one batch read (core/titles/rows-repository.ts).
import { notFound } from '../../core/errors.ts';
import { seasonRowsOfShow, titleRowsById, titleRowsByKeys } from '../../core/titles/rows-repository.ts';
import { standardTitle, type TitleType } from '../ids.ts';
import { pathNumber, pathTitle, titleLabel } from '../media-path.ts';
import { extendedOf, traktEpisode, traktSeason, traktTitle, wantsFull } from '../media-present.ts';
import { pageOf, paginationHeaders } from '../paging.ts';
import type { TraktCall, TraktRoute } from '../route.ts';

/** How many titles the trending lists hold: the catalog trending procedure's largest page. */
const TRENDING_MAX = 100;

function summary(type: TitleType): TraktRoute {
  return {
    method: 'GET',
    path: `/${type}s/:id`,
    summary: `A single ${type} (id: Trakt id, slug or IMDb id); extended=full adds its details`,
    tag: type === 'movie' ? 'Movies' : 'Shows',
    auth: 'none',
    async handle(call) {
      const title = await pathTitle(call, type);
      if (!wantsFull(call.query)) return { body: standardTitle(title) };
      const [row] = await titleRowsById(call.em, [title.id], true);
      if (!row) throw notFound(`${titleLabel(type)} ${call.params.id}`);
      return { body: traktTitle(row, true) };
    },
  };
}

function trending(type: TitleType): TraktRoute {
  return {
    method: 'GET',
    path: `/${type}s/trending`,
    summary: `The ${type}s watched most in the last 7 days, with their watchers`,
    tag: type === 'movie' ? 'Movies' : 'Shows',
    auth: 'none',
    paged: true,
    statuses: [400],
    async handle({ procedures, em, query }) {
      const page = pageOf(query);
      const full = wantsFull(query);
      // The whole list once (the procedure's answer is cached by its input), then the page of it.
      const { items } = await procedures.public.catalog.trending({ type, limit: TRENDING_MAX });
      const slice = items.slice(page.offset, page.offset + page.limit);
      const rows = await titleRowsByKeys(em, slice.map((i) => ({ type: i.type, movieDbId: i.movieDbId })), full);
      const byKey = new Map(rows.map((r) => [r.movie_db_id, r]));
      const body = slice.flatMap((i) => {
        const row = byKey.get(i.movieDbId);
        return row ? [{ watchers: row.watchers, [type]: traktTitle(row, full) }] : [];
      });
      return { body, headers: paginationHeaders(page, items.length) };
    },
  };
}

/** The season the path names (`:id`, `:season`) with its episodes; `season` undefined when the show has none of that number. */
async function pathSeason(call: TraktCall) {
  const show = await pathTitle(call, 'show');
  const number = pathNumber(call.params.season, 'Season');
  const [season] = await seasonRowsOfShow(call.em, show.id, { season: number, episodes: true });
  return { number, season };
}

export const mediaRoutes: TraktRoute[] = [
  trending('movie'),
  trending('show'),
  summary('movie'),
  summary('show'),
  {
    method: 'GET',
    path: '/shows/:id/seasons',
    summary: 'A show\'s seasons; extended=episodes adds their episodes, extended=full their details',
    tag: 'Seasons',
    auth: 'none',
    async handle(call) {
      const show = await pathTitle(call, 'show');
      const extended = extendedOf(call.query);
      const opts = { full: extended.includes('full'), episodes: extended.includes('episodes') };
      const seasons = await seasonRowsOfShow(call.em, show.id, { episodes: opts.episodes });
      return { body: seasons.map((s) => traktSeason(s, opts)) };
    },
  },
  {
    method: 'GET',
    path: '/shows/:id/seasons/:season',
    summary: 'The episodes of one season of a show',
    tag: 'Seasons',
    auth: 'none',
    async handle(call) {
      const { number, season } = await pathSeason(call);
      if (!season) throw notFound(`Season ${number} of show ${call.params.id}`);
      const full = wantsFull(call.query);
      return { body: season.episodes.map((e) => traktEpisode(e, full)) };
    },
  },
  {
    method: 'GET',
    path: '/shows/:id/seasons/:season/episodes/:episode',
    summary: 'One episode of a show',
    tag: 'Episodes',
    auth: 'none',
    async handle(call) {
      const { number: season, season: row } = await pathSeason(call);
      const number = pathNumber(call.params.episode, 'Episode');
      const episode = row?.episodes.find((e) => e.episode_number === number);
      if (!episode) throw notFound(`Episode S${season}E${number} of show ${call.params.id}`);
      return { body: traktEpisode(episode, wantsFull(call.query)) };
    },
  },
];
