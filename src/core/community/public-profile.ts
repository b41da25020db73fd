// GET /api/public/v1/users/{username}: a user's public profile. A private profile answers exactly as an
// unknown username does (404), so privacy does not reveal which usernames exist. Every read is bounded:
// the counts scan the user's own rows through their indexes, the rest are short top-N reads.
import type { EntityManager } from '@mikro-orm/postgresql';
import { ITEM_COLUMNS, toCatalogItem, type ItemRow } from '../catalog/present.ts';
import { query } from '../db/sql.ts';
import { notFound } from '../errors.ts';
import { RECENT_WATCHES, toRecentWatch, type RecentWatchRow } from '../profile/home.ts';
import { publicLists } from './public-lists.ts';
import { PROFILE_FAVOURITES, PROFILE_LISTS, PROFILE_RECENT_WATCHES, type PublicProfile } from './schemas.ts';

type UserRow = { id: string; username: string; display_name: string; avatar_url: string | null; bio: string; created_at: Date | string };

// Each watch's runtime: as logged, else the episode's, else the title's (as the community statistics count it).
const STATS = `
select
  count(distinct w.title_id) filter (where t.type = 'movie')::int as movies,
  count(distinct w.title_id) filter (where t.type = 'show')::int as shows,
  count(distinct w.episode_id)::int as episodes,
  count(w.id)::int as watches,
  coalesce(sum(coalesce(w.runtime_minutes, e.runtime_minutes, t.runtime_minutes, t.episode_run_time_minutes, 0)), 0)::bigint as minutes,
  (select count(*)::int from user_rating where user_id = $1) as ratings,
  (select count(*)::int from user_title_state where user_id = $1 and is_favourite) as favourites,
  (select count(*)::int from list where owner_id = $1 and is_public) as public_lists
from watch_history w join title t on t.id = w.title_id left join episode e on e.id = w.episode_id
where w.user_id = $1`;

type StatsRow = { movies: number; shows: number; episodes: number; watches: number; minutes: string; ratings: number; favourites: number; public_lists: number };

const FAVOURITES = `
select ${ITEM_COLUMNS} from user_title_state s join title t on t.id = s.title_id
where s.user_id = $1 and s.is_favourite
order by s.favourited_at desc, s.id desc
limit $2`;

// Owned public lists, most liked first, then newest.
const LIST_IDS = `
select l.id from list l
where l.owner_id = $1 and l.is_public
order by (select count(*) from list_like k where k.list_id = l.id) desc, l.id desc
limit $2`;

export async function publicProfile(em: EntityManager, username: string, imageBaseUrl: string): Promise<PublicProfile> {
  const [user] = await query<UserRow>(em, {
    text: `select id, username, display_name, avatar_url, bio, created_at from app_user where lower(username) = lower($1) and profile_privacy = 'public'`,
    params: [username],
  });
  if (!user) throw notFound(`User "${username}"`);
  const [stats] = await query<StatsRow>(em, { text: STATS, params: [user.id] });
  const favourites = await query<ItemRow>(em, { text: FAVOURITES, params: [user.id, PROFILE_FAVOURITES] });
  const watches = await query<RecentWatchRow>(em, { text: RECENT_WATCHES, params: [user.id, PROFILE_RECENT_WATCHES] });
  const listIds = await query<{ id: string }>(em, { text: LIST_IDS, params: [user.id, PROFILE_LISTS] });
  const s = stats!;
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
      hoursWatched: Math.floor(Number(s.minutes) / 60),
      ratings: s.ratings,
      favourites: s.favourites,
      publicLists: s.public_lists,
    },
    favourites: favourites.map((r) => toCatalogItem(r, imageBaseUrl)),
    recentWatches: watches.map((r) => ({ ...toRecentWatch(r, imageBaseUrl), watchedAt: new Date(r.watched_at).toISOString() })),
    lists: await publicLists(em, listIds.map((r) => r.id)),
  };
}
