// Resolving the ways clients name a title (bulk sync, playback) to catalog rows, many at once in one
// query. A title is (type, movie_db_id); other ids and title + year are fallbacks, tried in
// the order: movie_db_id, tv_db_id, film_db_id, anime_db_id, title + year, then the normalised title + year
// (case, accents, punctuation, "&" for "and" and a leading "The" do not count). `type` is what the item names
// (an item with a season or an episode names a show); ids found under the other type never match.
import type { EntityManager } from '@mikro-orm/postgresql';
import { resolveAny, resolveByMovieDbId, resolveEpisodeRefs } from './resolve-repository.ts';

export type TitleRef = {
  type: 'movie' | 'show';
  movieDbId?: number | undefined;
  tvDbId?: number | undefined;
  filmDbId?: string | undefined;
  animeDbId?: number | undefined;
  title?: string | undefined;
  year?: number | undefined;
};

export type ResolvedTitle = {
  /** Catalog row id (bigint as a string). */
  id: string;
  type: 'movie' | 'show';
  movieDbId: number;
  isAnime: boolean;
  name: string;
  year: number;
  runtimeMinutes: number | null;
  posterPath: string;
  tvDbId: number | null;
  filmDbId: string | null;
};

/** A title's row as the resolving statements read it (runtime_minutes: the movie's, else the show's episode runtime). */
type Row = Omit<Awaited<ReturnType<typeof resolveByMovieDbId>>[number], 'idx'>;

/** A resolving statement's row (or any title row with its columns) as the title it names. */
export const toResolved = (row: Row): ResolvedTitle => ({
  id: String(row.id),
  type: row.type,
  movieDbId: row.movie_db_id,
  isAnime: row.is_anime,
  name: row.name,
  year: row.year,
  runtimeMinutes: row.runtime_minutes,
  posterPath: row.poster_path,
  tvDbId: row.tv_db_id,
  filmDbId: row.film_db_id,
});

/** One answer per ref, in order: the title, or null where nothing matches. */
export async function resolveTitles(em: EntityManager, refs: TitleRef[]): Promise<(ResolvedTitle | null)[]> {
  if (refs.length === 0) return [];
  const answers: (ResolvedTitle | null)[] = refs.map(() => null);
  const byId = refs.flatMap((r, idx) => (r.movieDbId === undefined ? [] : [{ idx, type: r.type, movie_db_id: r.movieDbId }]));
  if (byId.length > 0) {
    for (const row of await resolveByMovieDbId(em, byId)) answers[row.idx] = toResolved(row);
  }
  const rest = refs.flatMap((r, idx) =>
    answers[idx]
      ? []
      : [{ idx, type: r.type, movie_db_id: r.movieDbId ?? null, tv_db_id: r.tvDbId ?? null, film_db_id: r.filmDbId ?? null, anime_db_id: r.animeDbId ?? null, title: r.title?.trim() || null, year: r.year ?? null }],
  );
  if (rest.length > 0) {
    for (const row of await resolveAny(em, rest)) answers[row.idx] = toResolved(row);
  }
  return answers;
}

export async function resolveTitle(em: EntityManager, ref: TitleRef): Promise<ResolvedTitle | null> {
  const [found] = await resolveTitles(em, [ref]);
  return found ?? null;
}

/** An episode of a resolved show, by season and number or by absolute number (anime numbering). */
export type EpisodeRef = { titleId: string; season?: number | undefined; episode?: number | undefined; absolute?: number | undefined };

export type ResolvedEpisode = { id: string; titleId: string; season: number; episode: number; absolute: number | null; name: string; runtimeMinutes: number | null; airDate: string | null };

/** One answer per ref, in order: the episode, or null where the show has no such episode. */
export async function resolveEpisodes(em: EntityManager, refs: EpisodeRef[]): Promise<(ResolvedEpisode | null)[]> {
  if (refs.length === 0) return [];
  const input = refs.map((r, idx) => ({ idx, title_id: r.titleId, season: r.season ?? null, episode: r.episode ?? null, absolute: r.absolute ?? null }));
  const answers: (ResolvedEpisode | null)[] = refs.map(() => null);
  for (const row of await resolveEpisodeRefs(em, input)) {
    answers[row.idx] = { id: String(row.id), titleId: String(row.title_id), season: row.season_number, episode: row.episode_number, absolute: row.absolute_number, name: row.name, runtimeMinutes: row.runtime_minutes, airDate: row.air_date };
  }
  return answers;
}
