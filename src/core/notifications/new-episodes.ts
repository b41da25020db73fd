// New-episode notifications, made by a background job (src/jobs/new-episodes.ts): for each episode that
// has aired (air date on or before today, UTC) within the last LOOKBACK_DAYS days, every user following
// its show gets one notification. A user follows a show while its status is `watching`, `planned` or
// `completed` (a returning show's new season), or while it is on their watchlist or among their
// favourites; never while its status is `paused` or `dropped` (the user stepped away). Only episodes that
// aired on or after the day the user started following count (no flood of back episodes when a show is
// added), and not episodes already in the user's history. The dedupe key `new_episode:{episodeId}` makes
// every re-run, and overlapping runs of several instances, record each notification once.
import type { EntityManager } from '@mikro-orm/postgresql';
import { query } from '../db/sql.ts';
import { transaction } from '../db/transaction.ts';
import { punchplayId } from '../playback/media.ts';
import { recordNotification } from './record.ts';

/** Episodes that aired longer ago than this are not announced (a job that was down catches up this far). */
export const LOOKBACK_DAYS = 7;
/** Notifications recorded per transaction. */
const BATCH = 500;

type Due = {
  user_id: string;
  episode_id: string;
  movie_db_id: number;
  show_name: string;
  season_number: number;
  episode_number: number;
  episode_name: string;
  air_date: string;
};

// Starts from the episodes aired within the window (index episode_air_date), then their shows' followers
// (indexes user_title_state_followers, list_item_title), with when each follow began; a show followed
// several ways counts from the earliest. Candidates: (user, episode) pairs due and not yet notified, in
// keyset order (user_id, episode_id).
const DUE = `
with aired as (
  select e.id, e.title_id, e.season_number, e.episode_number, e.name, e.air_date
  from episode e where e.air_date <= $1::date and e.air_date > $1::date - $2::int
), follow as (
  select s.user_id, s.title_id,
    least(case when s.show_status in ('watching', 'planned', 'completed') then s.show_status_at end, case when s.is_favourite then s.favourited_at end) as since
  from user_title_state s
  where s.title_id in (select title_id from aired) and (s.show_status in ('watching', 'planned', 'completed') or s.is_favourite)
  union all
  select l.owner_id, i.title_id, i.added_at
  from list_item i join list l on l.id = i.list_id and l.is_watchlist
  where i.title_id in (select title_id from aired)
), followed as (
  select user_id, title_id, min(since) as since from follow group by user_id, title_id
)
select f.user_id, e.id::text as episode_id, t.movie_db_id, t.name as show_name, e.season_number, e.episode_number, e.name as episode_name,
  to_char(e.air_date, 'YYYY-MM-DD') as air_date
from aired e
join title t on t.id = e.title_id and t.type = 'show'
join followed f on f.title_id = e.title_id
where e.air_date >= (f.since at time zone 'UTC')::date
  and not exists (select 1 from user_title_state s where s.user_id = f.user_id and s.title_id = f.title_id and s.show_status in ('paused', 'dropped'))
  and not exists (select 1 from watch_history h where h.user_id = f.user_id and h.title_id = e.title_id and h.episode_id = e.id)
  and not exists (select 1 from notification n where n.user_id = f.user_id and n.dedupe_key = 'new_episode:' || e.id)
  and (f.user_id, e.id) > ($3::uuid, $4::bigint)
order by f.user_id, e.id
limit $5`;

const code = (n: number) => String(n).padStart(2, '0');

/** Records the notifications due at `now`; returns how many it recorded. */
export async function notifyNewEpisodes(em: EntityManager, now: Date): Promise<number> {
  const today = now.toISOString().slice(0, 10);
  let after: [string, string] = ['00000000-0000-0000-0000-000000000000', '0'];
  let recorded = 0;
  for (;;) {
    const due = await query<Due>(em, { text: DUE, params: [today, LOOKBACK_DAYS, after[0], after[1], BATCH] });
    if (due.length === 0) return recorded;
    recorded += await transaction(em, async (tx) => {
      let n = 0;
      for (const d of due) {
        const episode = `S${code(d.season_number)}E${code(d.episode_number)}`;
        const id = await recordNotification(tx, {
          userId: d.user_id,
          kind: 'new_episode',
          title: `New episode of ${d.show_name}`,
          body: `${episode} "${d.episode_name}" aired on ${d.air_date}.`,
          data: {
            type: 'show',
            movieDbId: d.movie_db_id,
            punchplayId: punchplayId('show', d.movie_db_id),
            showName: d.show_name,
            season: d.season_number,
            episode: d.episode_number,
            episodeName: d.episode_name,
            airDate: d.air_date,
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
