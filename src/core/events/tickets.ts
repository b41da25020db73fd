// Single-use tickets for GET /playback/events: a browser EventSource cannot send an Authorization
// header, so the app trades its bearer token for a ticket (POST /playback/events/ticket) and opens the
// stream with `?ticket=`. A ticket lives TICKET_TTL_SECONDS, opens one stream, and acts with the
// token's user, app and scopes; the stream is bound to that token and ends when the token no longer
// stands. Stored in the database (hashed), so any instance can redeem it.
import { createHash } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Actor } from '../actor.ts';
import { randomBase64url } from '../security/random.ts';
import { deleteExpiredTickets, insertTicket, useTicket } from './repository.ts';

export const TICKET_TTL_SECONDS = 60;

const sha256 = (value: string) => createHash('sha256').update(value).digest('base64url');

export type Ticket = { ticket: string; expires_in: number };

/**
 * `token`: the asking token as the rate limits know it (`digest`, its per-token buckets) and as it is
 * stored (`key`): the stream the ticket opens counts against the one and is re-checked against the other.
 */
export async function createTicket(em: EntityManager, actor: Actor, token: { digest: string; key: string }): Promise<Ticket> {
  const ticket = `evt_${randomBase64url(32)}`;
  await insertTicket(em, {
    ticketHash: sha256(ticket), userId: actor.userId, clientId: actor.clientId, scopes: [...actor.scopes].join(' '), official: actor.official,
    tokenDigest: token.digest, tokenKey: token.key, ttlSeconds: TICKET_TTL_SECONDS,
  });
  return { ticket, expires_in: TICKET_TTL_SECONDS };
}

/** Uses a ticket up (compare-and-set: of parallel redemptions one wins); null if unknown, used or expired. */
export async function redeemTicket(em: EntityManager, ticket: string): Promise<{ actor: Actor; tokenDigest: string; tokenKey: string } | null> {
  if (ticket.length > 200) return null;
  const row = await useTicket(em, sha256(ticket));
  if (!row) return null;
  return {
    actor: { userId: row.user_id, clientId: row.client_id, scopes: new Set(row.scopes.split(' ').filter(Boolean)), official: row.official },
    tokenDigest: row.token_digest,
    tokenKey: row.token_key,
  };
}

/** Deletes tickets past their lifetime (used or not); returns how many. */
export function sweepTickets(em: EntityManager): Promise<number> {
  return deleteExpiredTickets(em);
}
