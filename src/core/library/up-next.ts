// Up next: per show the user is watching, the next episode to watch. A show is in it while the user has
// watched a regular episode of it, has not dropped it, and the first regular episode after the furthest
// one watched (by season and episode number, not by when) has aired; latest watch first, in keyset
// pages. A page reads the kept per-title figures through their index and then its own shows only, so
// it costs the page, whatever the size of the user's history.
import type { EntityManager } from '@mikro-orm/postgresql';
import { imageUrl, toCatalogItem } from '../catalog/present.ts';
import { decodeCursor, encodeCursor, isBigintText, isTimestampText } from '../paging/cursor.ts';
import { STILL_SIZE } from '../titles/present.ts';
import { upNextRows, upNextShows, type UpNextPosition } from './up-next-repository.ts';
import type { UpNextItem, UpNextPage, UpNextQuery } from './up-next-schemas.ts';

const isPosition = (p: unknown): p is UpNextPosition => Array.isArray(p) && p.length === 2 && isTimestampText(p[0]) && isBigintText(p[1]);

export async function listUpNext(em: EntityManager, userId: string, q: UpNextQuery, imageBaseUrl: string): Promise<UpNextPage> {
  // Bound to the page size, as Continue Watching's cursor is: there is no filter to change.
  const bound = { limit: q.limit };
  const after = q.cursor === undefined ? null : decodeCursor(q.cursor, bound, isPosition);
  const rows = await upNextRows(em, userId, { after, rows: q.limit + 1 });
  const page = rows.slice(0, q.limit);
  const shows = new Map((await upNextShows(em, page.map((r) => r.title_id))).map((s) => [s.id, s]));
  const items = page.flatMap((r): UpNextItem[] => {
    const show = shows.get(r.title_id);
    // A title deleted between the two reads takes its figures with it: the show is simply gone.
    if (!show) return [];
    return [
      {
        show: toCatalogItem(show, imageBaseUrl),
        nextEpisode: {
          season: r.season_number,
          episode: r.episode_number,
          episodeTitle: r.episode_name,
          airDate: r.air_date,
          runtimeMinutes: r.runtime_minutes,
          stillUrl: imageUrl(imageBaseUrl, STILL_SIZE, r.still_path),
        },
        watchedEpisodes: r.regular_episodes,
        airedEpisodes: show.aired_episodes ?? 0,
        lastWatchedAt: new Date(r.last_watched_at).toISOString(),
      },
    ];
  });
  const last = page.at(-1);
  return { items, ...(rows.length > q.limit && last ? { nextCursor: encodeCursor([last.position_at, String(last.title_id)], bound) } : {}) };
}
