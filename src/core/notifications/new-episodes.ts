// New-episode notifications, made by a background job (src/jobs/new-episodes.ts): for each episode that
// has aired (air date on or before today, UTC) within the last LOOKBACK_DAYS days, every user following
// its show gets one notification. A user follows a show while its status is `watching`, `planned` or
// `completed` (a returning show's new season), or while it is on their watchlist or among their
// favourites; never while its status is `paused` or `dropped` (the user stepped away). Only episodes that
// aired on or after the day the user started following count (no flood of back episodes when a show is
// added), and not episodes already in the user's history. The dedupe key `new_episode:{episodeId}` makes
// every re-run, and overlapping runs of several instances, record each notification once.
import type { EntityManager } from '@mikro-orm/postgresql';
import { transaction } from '../db/transaction.ts';
import { punchplayId } from '../playback/media.ts';
import { dueNewEpisodes } from './new-episodes-repository.ts';
import { recordNotification } from './record.ts';

/** Episodes that aired longer ago than this are not announced (a job that was down catches up this far). */
export const LOOKBACK_DAYS = 7;
/** Notifications recorded per transaction. */
const BATCH = 500;

const code = (n: number) => String(n).padStart(2, '0');

/** Records the notifications due at `now`; returns how many it recorded. */
export async function notifyNewEpisodes(em: EntityManager, now: Date): Promise<number> {
  const today = now.toISOString().slice(0, 10);
  // Aired within the last LOOKBACK_DAYS days: after the day LOOKBACK_DAYS before today, up to today.
  const window = { from: new Date(Date.parse(today) - LOOKBACK_DAYS * 86_400_000).toISOString().slice(0, 10), to: today };
  let after: [string, string] = ['00000000-0000-0000-0000-000000000000', '0'];
  let recorded = 0;
  for (;;) {
    const due = await dueNewEpisodes(em, window, after, BATCH);
    if (due.length === 0) return recorded;
    recorded += await transaction(em, async (tx) => {
      let n = 0;
      for (const d of due) {
        const episode = `S${code(d.season_number)}E${code(d.episode_number)}`;
        const id = await recordNotification(tx, {
          userId: d.user_id,
          kind: 'new_episode',
          title: `New episode of ${d.show_name}`,
          body: `${episode} "${d.episode_name}" aired on ${d.aired_on}.`,
          data: {
            type: 'show',
            movieDbId: d.movie_db_id,
            punchplayId: punchplayId('show', d.movie_db_id),
            showName: d.show_name,
            season: d.season_number,
            episode: d.episode_number,
            episodeName: d.episode_name,
            airDate: d.aired_on,
          },
          dedupeKey: `new_episode:${d.episode_id}`,
        });
        if (id) n++;
      }
      return n;
    });
    const last = due.at(-1)!;
    after = [last.user_id, last.episode_id];
    if (due.length < BATCH) return recorded;
  }
}
