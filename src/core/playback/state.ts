// The playback session state machine (the states and transitions of a playback session), pure.
// STATE_TABLE is the table, also published in the OpenAPI description of POST /playback/{action}.
import { ApiError } from '../errors.ts';
import type { PlaybackAction } from './schemas.ts';

export type SessionState = 'playing' | 'paused' | 'stopped' | 'watched';

export type SessionSnapshot = { state: SessionState; lastEventAt: number };

export type Verdict = { kind: 'apply'; next: SessionState } | { kind: 'stale' };

export const STATE_TABLE = [
  '| From | Event | To | Effects |',
  '| --- | --- | --- | --- |',
  '| none | `start`, `progress` | playing | session opened (live playback); progress > 0 moves Continue Watching |',
  '| none | `stop`, incomplete | stopped | inactive Continue Watching progress created (passive snapshot; no earlier event needed) |',
  '| none | `stop`, complete | watched | one history entry per episode (up to `episode_end`) |',
  '| none | `pause`, `resume` | none | 409 `playback_state_conflict`: no session to pause or resume |',
  '| playing, paused | `start`, `resume`, `progress` | playing | progress > 0 moves Continue Watching |',
  '| playing, paused | `pause` | paused | progress > 0 moves Continue Watching |',
  '| stopped, watched | `pause` | unchanged | 409 `playback_state_conflict`: the session is not active |',
  '| stopped, watched | `start`, `resume`, `progress` | playing | progress > 0 moves Continue Watching |',
  '| any | `stop`, incomplete (a later passive snapshot) | stopped | Continue Watching progress updated, if newer than the entry |',
  '| any | `stop`, complete | watched | history entry unless this session already logged one (then `ignored: already_scrobbled` if nothing else changed); the title leaves Continue Watching |',
  '| any | an event older (`event_created_at`) than the session\'s latest | unchanged | accepted with `ignored: stale_event`; a completed stop still logs the session\'s watch once |',
].join('\n');

const conflict = (message: string) => new ApiError('playback_state_conflict', message);

/** What an event does to its session (null: no session yet). Throws 409 where the table says so. */
export function transition(session: SessionSnapshot | null, action: PlaybackAction, eventAt: number, completes: boolean): Verdict {
  if (!session && (action === 'pause' || action === 'resume')) {
    throw conflict(`No playback session to ${action}: send start (live playback) or stop (a progress snapshot) first`);
  }
  if (session && eventAt < session.lastEventAt) return { kind: 'stale' };
  if (action === 'pause' && session && (session.state === 'stopped' || session.state === 'watched')) {
    throw conflict(`The playback session is ${session.state}, not playing: it cannot be paused`);
  }
  switch (action) {
    case 'pause':
      return { kind: 'apply', next: 'paused' };
    case 'stop':
      return { kind: 'apply', next: completes ? 'watched' : 'stopped' };
    default:
      return { kind: 'apply', next: 'playing' };
  }
}
