// What a playback event is about: the title (by the service's own id, then the catalog's ordered
// fallbacks of resolve.ts: movie_db_id, tv_db_id, film_db_id, title + year) and, for episodes, the
// episodes it covers. Anime absolute numbers map to season and episode. Nothing found is a 422.
// The title is found before the event's transaction (a title the catalog lacks may be fetched from the
// metadata provider then), its episodes inside it.
import type { EntityManager } from '@mikro-orm/postgresql';
import { resolveOrFetchTitle } from '../catalog/fetch/registry.ts';
import { resolveEpisodes, type EpisodeRef, type ResolvedEpisode, type ResolvedTitle } from '../catalog/resolve.ts';
import { ApiError } from '../errors.ts';
import type { PlaybackEventInput } from './schemas.ts';

/** The service's own title id, as catalog items carry it: `movie-129`, `show-9000001`. */
export function punchplayId(type: 'movie' | 'show', movieDbId: number): string {
  return `${type}-${movieDbId}`;
}

function parsePunchplayId(id: string): { type: 'movie' | 'show'; movieDbId: number } {
  const [type, n] = id.split('-');
  return { type: type as 'movie' | 'show', movieDbId: Number(n) };
}

export type ResolvedMedia = {
  title: ResolvedTitle;
  /** The episodes the event covers, in order (one unless multi-episode); empty for a movie. */
  episodes: ResolvedEpisode[];
  /** Absolute number of the first episode, when known. */
  absolute: number | null;
};

const mediaNotFound = (what: string) => new ApiError('media_not_found', `No ${what} in the catalog matches this event`);

/**
 * The title, by punchplay_id or the ids and title the event sends (src/core/catalog/resolve.ts rules);
 * outside the event's transaction, as a title the catalog lacks may be fetched meanwhile.
 */
export async function resolveEventTitle(em: EntityManager, input: PlaybackEventInput): Promise<ResolvedTitle> {
  const type = input.media_type === 'movie' ? 'movie' : 'show';
  const movieDbId = input.punchplay_id ? parsePunchplayId(input.punchplay_id).movieDbId : input.movie_db_id;
  const found = await resolveOrFetchTitle(em, { type, movieDbId, tvDbId: input.tv_db_id, filmDbId: input.film_db_id, title: input.title, year: input.year });
  if (!found) throw mediaNotFound(type);
  return found;
}

/** What the event is about: its title (resolveEventTitle) and, in `tx`, the episodes it covers. */
export async function resolveMedia(tx: EntityManager, input: PlaybackEventInput, title: ResolvedTitle): Promise<ResolvedMedia> {
  if (title.type === 'movie') return { title, episodes: [], absolute: null };
  const { episodes, byAbsolute } = await resolveEpisodeRange(tx, title, input);
  const first = episodes[0]!;
  return { title, episodes, absolute: first.absolute ?? (byAbsolute ? (input.absolute_episode ?? null) : null) };
}

/**
 * The first episode by season and number, or by absolute number (tried first for anime, where media
 * servers number episodes absolutely); then the rest of a multi-episode file in the same numbering.
 * A range stops at the first episode the catalog lacks.
 */
async function resolveEpisodeRange(em: EntityManager, title: ResolvedTitle, input: PlaybackEventInput): Promise<{ episodes: ResolvedEpisode[]; byAbsolute: boolean }> {
  const bySeason: EpisodeRef = { titleId: title.id, season: input.season, episode: input.episode };
  const byAbsolute: EpisodeRef | undefined = input.absolute_episode === undefined ? undefined : { titleId: title.id, absolute: input.absolute_episode };
  const absoluteFirst = byAbsolute !== undefined && (input.anime === true || title.isAnime);
  const order = byAbsolute ? (absoluteFirst ? [byAbsolute, bySeason] : [bySeason, byAbsolute]) : [bySeason];
  const candidates = await resolveEpisodes(em, order);
  const at = candidates.findIndex((c) => c !== null);
  if (at < 0) throw mediaNotFound('episode');
  const first = candidates[at]!;
  const usedAbsolute = order[at] === byAbsolute;
  const span = input.episode_end === undefined ? 0 : input.episode_end - input.episode!;
  if (span === 0) return { episodes: [first], byAbsolute: usedAbsolute };
  const rest = await resolveEpisodes(
    em,
    Array.from({ length: span }, (_, i) =>
      usedAbsolute ? { titleId: title.id, absolute: input.absolute_episode! + i + 1 } : { titleId: title.id, season: first.season, episode: first.episode + i + 1 },
    ),
  );
  const missing = rest.findIndex((e) => e === null);
  const found = (missing < 0 ? rest : rest.slice(0, missing)) as ResolvedEpisode[];
  return { episodes: [first, ...found], byAbsolute: usedAbsolute };
}
