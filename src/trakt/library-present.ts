// A page of the user's library as Trakt's media objects: the page's titles looked up in one batch by
// (type, movie database id) and its episodes and seasons in one batch each, never a query per item.
// Episodes and seasons have no external ids here: `trakt` is their row id, tvdb, imdb and tmdb are null.
import type { EntityManager } from '@mikro-orm/postgresql';
import { seasonRowIds } from '../core/catalog/episode-keys.ts';
import { resolveEpisodes, resolveTitles, type ResolvedEpisode, type ResolvedTitle } from '../core/catalog/resolve.ts';
import { standardTitle } from './ids.ts';

export type TitleKey = { type: 'movie' | 'show'; movieDbId: number };
const titleKey = (k: TitleKey) => `${k.type}/${k.movieDbId}`;

/** The page's titles, one statement for all of them. */
export async function pageTitles(em: EntityManager, keys: readonly TitleKey[]): Promise<(k: TitleKey) => ResolvedTitle | undefined> {
  const unique = [...new Map(keys.map((k) => [titleKey(k), k])).values()];
  const found = await resolveTitles(em, unique.map((k) => ({ type: k.type, movieDbId: k.movieDbId })));
  const byKey = new Map<string, ResolvedTitle>();
  unique.forEach((k, i) => found[i] && byKey.set(titleKey(k), found[i]));
  return (k) => byKey.get(titleKey(k));
}

export type EpisodeKey = { titleId: string; season: number; episode: number };
const episodeKey = (k: EpisodeKey) => `${k.titleId}/${k.season}/${k.episode}`;

/** The page's episodes (by show row id, season and number), one statement for all of them. */
export async function pageEpisodes(em: EntityManager, keys: readonly EpisodeKey[]): Promise<(k: EpisodeKey) => ResolvedEpisode | undefined> {
  const unique = [...new Map(keys.map((k) => [episodeKey(k), k])).values()];
  const found = await resolveEpisodes(em, unique.map((k) => ({ titleId: k.titleId, season: k.season, episode: k.episode })));
  const byKey = new Map<string, ResolvedEpisode>();
  unique.forEach((k, i) => found[i] && byKey.set(episodeKey(k), found[i]));
  return (k) => byKey.get(episodeKey(k));
}

/** The page's seasons' row ids (by show row id and number), one statement for all of them. */
export async function pageSeasons(em: EntityManager, keys: readonly { titleId: string; season: number }[]): Promise<(titleId: string, season: number) => number | null> {
  const ids = await seasonRowIds(em, keys);
  return (titleId, season) => {
    const id = ids.get(`${titleId}/${season}`);
    return id === undefined ? null : Number(id);
  };
}

/** Trakt's standard episode object: `{season, number, title, ids}`. */
export function traktEpisode(season: number, number: number, e: ResolvedEpisode | undefined) {
  return { season, number, title: e?.name ?? null, ids: { trakt: e ? Number(e.id) : null, tvdb: null, imdb: null, tmdb: null, tvrage: null } };
}

/** Trakt's season object in ratings: `{number, ids}`. */
export function traktSeason(number: number, id: number | null) {
  return { number, ids: { trakt: id, tvdb: null, tmdb: null, tvrage: null } };
}

/** `movie: {...}` or `show: {...}` of a title. */
export const titleField = (t: ResolvedTitle) => (t.type === 'movie' ? { movie: standardTitle(t) } : { show: standardTitle(t) });
