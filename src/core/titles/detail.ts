// The title detail (GET /title/{type}/{id}, `TitleDetail` in the platform OpenAPI document): the catalog's title with season stats and
// recommendations, the user's interaction, watches, lists and collection status (each only with the read
// scope the private-field rule names, else null / empty), featured lists, the users' average rating and
// the catalog source's rating. One statement reads the title, the featured lists and the user's library
// state (the lists and collection modules' parts embedded as SQL expressions) and the recommendations
// (precomputed for the whole catalog): one round trip to the database per request.
import type { Actor } from '../actor.ts';
import { visiblePrivateFields } from '../actor-visibility.ts';
import { imageUrl } from '../catalog/present.ts';
import type { CatalogDeps } from '../catalog/service.ts';
import { toCollectionStatus } from '../collection/for-title.ts';
import { notFound } from '../errors.ts';
import { toFeaturedLists, toTitleUserLists } from '../lists/for-title.ts';
import { isoTime, POSTER_SIZE, toSeasonSummary } from './present.ts';
import { findTitleDetail } from './repository.ts';
import { readFetching } from '../catalog/fetch/registry.ts';
import type { NativeTitle, TitleDetail, TitleDetailInput } from './schemas.ts';
import { utcDay, userStateFor } from './user-state.ts';

type DetailRow = NonNullable<Awaited<ReturnType<typeof findTitleDetail>>>;

/** Optional NativeTitle fields: present when the catalog knows them (text the catalog keeps "" stays ""). */
function optional<K extends string, V>(key: K, value: V | null): { [P in K]?: V } {
  return (value === null ? {} : { [key]: value }) as { [P in K]?: V };
}

function toNativeTitle(row: DetailRow, imageBaseUrl: string): NativeTitle {
  return {
    movieDbId: row.movie_db_id,
    type: row.type,
    category: row.category,
    isAnime: row.is_anime,
    name: row.name,
    tagline: row.tagline,
    year: row.year,
    ...optional('releaseDate', row.release_date),
    overview: row.overview,
    posterUrl: imageUrl(imageBaseUrl, POSTER_SIZE, row.poster_path),
    backdropUrl: imageUrl(imageBaseUrl, 'w1280', row.backdrop_path),
    communityRating: row.community_rating,
    genres: row.genres,
    originalLanguage: row.original_language,
    status: row.status,
    ageRating: row.age_rating,
    ...optional('runtimeMinutes', row.runtime_minutes),
    ...optional('episodeRunTimeMinutes', row.episode_run_time_minutes),
    ...optional('seasonsCount', row.seasons_count),
    ...optional('episodesCount', row.episodes_count),
    seasonStats: (row.season_stats ?? []).map((s) => toSeasonSummary(s, imageBaseUrl)),
    recommendations: row.recommendations.map((r) => ({
      movieDbId: r.movie_db_id,
      type: r.type,
      name: r.name,
      year: r.year,
      posterUrl: imageUrl(imageBaseUrl, POSTER_SIZE, r.poster_path),
      isAnime: r.is_anime,
    })),
  };
}

export async function titleDetail(deps: Pick<CatalogDeps, 'em' | 'imageBaseUrl'>, actor: Actor, input: TitleDetailInput): Promise<TitleDetail> {
  const { em, imageBaseUrl } = deps;
  const visible = visiblePrivateFields(actor);
  const scope = input.scope ?? (input.type === 'movie' ? 'title' : 'series');
  const query = { type: input.type, movieDbId: input.id, scope, today: utcDay(), state: userStateFor(actor) };
  // A title the catalog lacks is fetched from the metadata provider, when one is configured, and read again.
  const row = await readFetching(em, { type: input.type, movieDbId: input.id }, () => findTitleDetail(em, query));
  if (!row) throw notFound(`${input.type === 'movie' ? 'Movie' : 'Show'} ${input.id}`);
  return {
    title: toNativeTitle(row, imageBaseUrl),
    interaction: visible.interaction
      ? { watchedAt: row.watched_at ? isoTime(row.watched_at) : null, rating: row.rating ?? null, isFavourite: row.is_favourite ?? false, showStatus: row.show_status ?? null }
      : null,
    // Ids and times as the statement's JSON holds them: ids as JSON numbers, times as text.
    watchHistory: (row.history ?? []).map((h) => ({ id: Number(h.id), watchedAt: isoTime(h.watched_at), season: h.season, episode: h.episode })),
    userLists: visible.userLists && row.user_lists ? toTitleUserLists(row.user_lists) : null,
    collectionStatus: visible.collectionStatus && row.collection_items ? toCollectionStatus(row.collection_items) : null,
    featuredLists: toFeaturedLists(row.featured_lists ?? []),
    communityRating: { average: row.community_average, count: row.community_count },
    externalRatings: row.vote_count > 0 ? { ratings: [{ source: 'movie_db', value: row.community_rating, votes: row.vote_count }] } : null,
  };
}
