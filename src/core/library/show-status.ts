// Automatic show-status transitions after watches are logged. Called by logWatches in the
// same transaction, with the titles that got new entries.
//
// Shows: progress = aired regular episodes (season >= 1, air date today or earlier, or unknown) watched
// at least once. A watch moves the status up, never down:
//   none / planned      -> watching, or completed when every aired episode is watched
//   watching            -> completed when every aired episode is watched
//   completed           -> stays (a rewatch or a newly aired episode does not reopen it)
//   paused              -> as `none`, but only for a watch dated after the show was paused (a backfill of
//                          old history through sync leaves it paused)
//   dropped             -> stays: only the user changes it
// Movies: a watch completes a movie that was `planned`; otherwise a movie gets no status from watching.
import type { EntityManager } from '@mikro-orm/postgresql';
import { query } from '../db/sql.ts';
import type { ShowStatus } from './library-items.ts';
import { writeShowStatus } from './title-state-write.ts';

/** An episode counts as aired from its air date (UTC); an episode without a date counts as aired. */
export const AIRED = `(e.air_date is null or e.air_date <= (now() at time zone 'UTC')::date)`;

type Progress = { title_id: string; type: 'movie' | 'show'; movie_db_id: number; show_status: ShowStatus | null; show_status_at: Date | null; aired: number; watched: number };

// Movies without a status skip the counting (they can gain none).
const PROGRESS = `
select t.id as title_id, t.type, t.movie_db_id, st.show_status, st.show_status_at,
  (select count(*)::int from episode e where e.title_id = t.id and e.season_number > 0 and ${AIRED}) as aired,
  (select count(distinct w.episode_id)::int from watch_history w join episode e on e.id = w.episode_id
    where w.user_id = $1 and w.title_id = t.id and e.season_number > 0 and ${AIRED}) as watched
from title t left join user_title_state st on st.user_id = $1 and st.title_id = t.id
where t.id = any($2::bigint[]) and (t.type = 'show' or st.show_status = 'planned')`;

/** The status the rules give a title now held at `current`, after a watch dated `watchedAt`. */
export function nextStatus(
  type: 'movie' | 'show',
  current: { status: ShowStatus | null; since: Date | null },
  progress: { aired: number; watched: number },
  watchedAt: Date,
): ShowStatus | null {
  if (type === 'movie') return current.status === 'planned' ? 'completed' : current.status;
  const reached: ShowStatus = progress.aired > 0 && progress.watched >= progress.aired ? 'completed' : 'watching';
  switch (current.status) {
    case null:
    case 'planned':
    case 'watching':
      return reached;
    case 'paused':
      return current.since !== null && watchedAt > current.since ? reached : 'paused';
    case 'completed':
    case 'dropped':
      return current.status;
  }
}

export async function applyWatchTransitions(tx: EntityManager, userId: string, titles: { titleId: string; latestWatchedAt: Date }[]): Promise<void> {
  if (titles.length === 0) return;
  const rows = await query<Progress>(tx, { text: PROGRESS, params: [userId, titles.map((t) => t.titleId)] });
  const latest = new Map(titles.map((t) => [t.titleId, t.latestWatchedAt]));
  for (const p of rows) {
    const current = { status: p.show_status, since: p.show_status_at ? new Date(p.show_status_at) : null };
    const next = nextStatus(p.type, current, p, latest.get(String(p.title_id))!);
    if (next !== current.status) await writeShowStatus(tx, userId, { id: String(p.title_id), type: p.type, movieDbId: p.movie_db_id }, next, 'auto');
  }
}
