// Which playback session an event of a media server belongs to, and its event id. Servers send no id of
// a playback (Emby's session id is its client's, across items), so a receiver follows each play (an
// account playing an item on a player) and names its playbacks: a start begins a new playback unless the
// current one is still going (a start sent twice, a player reconnecting); every other event joins the
// current one. The event id is the playback and the event's name and position, so the same event sent
// twice is one event (the playback module answers a repeated event_id with its first answer); the same
// event sent again after others (Plex's duplicate stops) also finds its playback, because the receiver
// keeps the latest event of each play.
import { createHash } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { transaction } from '../db/transaction.ts';
import { randomBase64url } from '../security/random.ts';
import { deleteIdlePlays, lockPlay, selectPlay, upsertPlay } from './repository.ts';
import type { ServerEvent } from './server-event.ts';

/** A start joins the current playback only when that playback had an event this recently. */
const ONGOING_MS = 6 * 60 * 60 * 1000;
/** Plays without an event for this long are forgotten. */
const PLAY_TTL_DAYS = 30;

const digest = (parts: readonly string[]) => createHash('sha256').update(JSON.stringify(parts)).digest('base64url');

export type PlayDecision = {
  sessionId: string;
  eventId: string;
  /** Whether the receiver has seen this play before (a pause or resume of an unseen play opens it). */
  known: boolean;
  /** The server said this playback was watched: its stops complete the watch. */
  watched: boolean;
};

/** Decides the event's playback session in a short transaction of its own, and notes the event as the play's latest. */
export async function decidePlay(em: EntityManager, receiverId: string, e: ServerEvent): Promise<PlayDecision> {
  const { server, account, player, item, session } = e.play;
  const playKey = digest([e.kind, server, account, player, item, session ?? '']);
  const fingerprint = `${e.event}@${e.positionSeconds ?? '-'}`;
  return transaction(em, async (tx) => {
    await lockPlay(tx, receiverId, playKey);
    const row = await selectPlay(tx, receiverId, playKey);
    const ongoing = row !== undefined && !row.ended && !row.watched && Date.now() - row.updated_at.getTime() < ONGOING_MS;
    const sameSession = row !== undefined && (row.last_fingerprint === fingerprint || e.action !== 'start' || ongoing);
    const sessionId = sameSession ? row.session_id : `${e.kind}-${randomBase64url(12)}`;
    const watched = (sameSession && row.watched) || e.watched;
    if (!row) await deleteIdlePlays(tx, receiverId, PLAY_TTL_DAYS);
    await upsertPlay(tx, receiverId, playKey, { session_id: sessionId, last_fingerprint: fingerprint, ended: e.action === 'stop', watched });
    return { sessionId, eventId: `${e.kind}-${digest([sessionId, fingerprint])}`, known: row !== undefined, watched };
  });
}
