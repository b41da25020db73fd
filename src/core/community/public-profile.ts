// GET /api/public/v1/users/{username}: a user's public profile. A private profile answers exactly as an
// unknown username does (404), so privacy does not reveal which usernames exist. Every read is bounded:
// the totals are kept on write, the rest are short top-N reads.
import type { EntityManager } from '@mikro-orm/postgresql';
import { toCatalogItem } from '../catalog/present.ts';
import { notFound } from '../errors.ts';
import { toRecentWatch } from '../profile/home.ts';
import { recentWatches } from '../profile/repository.ts';
import { publicLists } from './public-lists.ts';
import { userFigures } from '../figures/totals.ts';
import { favouriteItems, profileCounts, profileListIds, publicUser } from './repository.ts';
import { PROFILE_FAVOURITES, PROFILE_LISTS, PROFILE_RECENT_WATCHES, type PublicProfile } from './schemas.ts';

export async function publicProfile(em: EntityManager, username: string, imageBaseUrl: string): Promise<PublicProfile> {
  const user = await publicUser(em, username);
  if (!user) throw notFound(`User "${username}"`);
  const s = await userFigures(em, user.id);
  const c = await profileCounts(em, user.id);
  const favourites = await favouriteItems(em, user.id, PROFILE_FAVOURITES);
  const watches = await recentWatches(em, user.id, PROFILE_RECENT_WATCHES);
  const listIds = await profileListIds(em, user.id, PROFILE_LISTS);
  return {
    username: user.username,
    displayName: user.display_name,
    avatarUrl: user.avatar_url,
    bio: user.bio,
    joinedAt: new Date(user.created_at).toISOString(),
    stats: {
      moviesWatched: s.movies,
      showsWatched: s.shows,
      episodesWatched: s.episodes,
      watches: s.watches,
      hoursWatched: Math.floor(s.minutes / 60),
      ratings: s.ratings,
      favourites: c.favourites ?? 0,
      publicLists: c.public_lists ?? 0,
    },
    favourites: favourites.map((r) => toCatalogItem(r, imageBaseUrl)),
    recentWatches: watches.map((r) => ({ ...toRecentWatch(r, imageBaseUrl), watchedAt: new Date(r.watched_at).toISOString() })),
    lists: await publicLists(em, listIds),
  };
}
