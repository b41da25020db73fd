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
import { watchProgress } from './history-repository.ts';
import type { ShowStatus } from './library-items.ts';
import { writeShowStatus } from './title-state-write.ts';

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
  const rows = await watchProgress(tx, userId, titles.map((t) => t.titleId));
  const latest = new Map(titles.map((t) => [t.titleId, t.latestWatchedAt]));
  for (const p of rows) {
    const current = { status: p.show_status, since: p.show_status_at };
    const next = nextStatus(p.type, current, { aired: p.aired ?? 0, watched: p.watched ?? 0 }, latest.get(String(p.title_id))!);
    if (next !== current.status) await writeShowStatus(tx, userId, { id: String(p.title_id), type: p.type, movieDbId: p.movie_db_id }, next, 'auto');
  }
}
