// How far into the media an event is, and whether a stop completes the watch.
import { DEFAULT_WATCHED_THRESHOLD } from '../profile/settings-schemas.ts';
import type { PlaybackAction, PlaybackEventInput } from './schemas.ts';

export type Measured = { progress: number | null; positionSeconds: number | null; durationSeconds: number | null };

/** `progress` as sent, else position / duration; `position_seconds` as sent, else progress × duration. */
export function measure(input: PlaybackEventInput): Measured {
  const duration = input.duration_seconds ?? null;
  const progress = input.progress ?? (input.position_seconds !== undefined && duration !== null ? input.position_seconds / duration : null);
  const position = input.position_seconds ?? (progress !== null && duration !== null ? Math.round(progress * duration) : null);
  return { progress, positionSeconds: position, durationSeconds: duration };
}

/**
 * A stop completes the watch with `watched: true`, or at or over `watched_threshold` (else the user's
 * default, else 0.8) unless `watched: false` marks it incomplete. Other actions never complete a watch.
 */
export function completesWatch(action: PlaybackAction, input: PlaybackEventInput, progress: number | null, userThreshold = DEFAULT_WATCHED_THRESHOLD): boolean {
  if (action !== 'stop') return false;
  if (input.watched !== undefined) return input.watched;
  return progress !== null && progress >= (input.watched_threshold ?? userThreshold);
}

/** Whether completesWatch needs the user's default threshold (a stop deciding by progress alone). */
export const needsUserThreshold = (action: PlaybackAction, input: PlaybackEventInput): boolean =>
  action === 'stop' && input.watched === undefined && input.watched_threshold === undefined;
