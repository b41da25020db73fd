// The deprecated profile home (GET /profile/home, `ProfileHome` in the platform OpenAPI document): the user's lists and their most recent watches.
// Its successors are GET /me/lists and GET /me/history.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { ProfilePart } from '../actor-visibility.ts';
import { imageUrl } from '../catalog/present.ts';
import { profileHomeLists } from '../lists/summaries.ts';
import { recentWatches } from './repository.ts';
import type { ProfileHome, RecentWatch } from './schemas.ts';

const HOME_LISTS = 20;
const HOME_RECENT_WATCHES = 20;

/** A watch as the recent-watch shapes need it (profile home, and the public profile with `watched_at`). */
export type RecentWatchRow = Awaited<ReturnType<typeof recentWatches>>[number];

/** `see`: the parts the token may read (actor-visibility.ts); a part it may not is empty. */
export async function profileHome(em: EntityManager, userId: string, imageBaseUrl: string, see: Record<ProfilePart, boolean>): Promise<ProfileHome> {
  const lists = see.lists ? await profileHomeLists(em, userId, HOME_LISTS) : [];
  const rows = see.history ? await recentWatches(em, userId, HOME_RECENT_WATCHES) : [];
  return { lists, recentWatchHistory: rows.map((r) => toRecentWatch(r, imageBaseUrl)) };
}

export function toRecentWatch(r: Omit<RecentWatchRow, 'watched_at'>, imageBaseUrl: string): RecentWatch {
  return {
    id: String(r.id),
    movieDbId: r.movie_db_id,
    type: r.type,
    name: r.name,
    posterUrl: imageUrl(imageBaseUrl, 'w500', r.poster_path),
    backdropUrl: imageUrl(imageBaseUrl, 'w1280', r.backdrop_path),
    season: r.season_number ?? 0,
    episode: r.episode_number ?? 0,
    episodeTitle: r.episode_title ?? '',
    mediaSource: 'movie_db',
  };
}
