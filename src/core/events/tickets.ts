// Single-use tickets for GET /playback/events: a browser EventSource cannot send an Authorization
// header, so the app trades its bearer token for a ticket (POST /playback/events/ticket) and opens the
// stream with `?ticket=`. A ticket lives TICKET_TTL_SECONDS, opens one stream, and acts with the
// token's user, app and scopes. Stored in the database (hashed), so any instance can redeem it.
import { createHash } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Actor } from '../actor.ts';
import { query } from '../db/sql.ts';
import { randomBase64url } from '../security/random.ts';

export const TICKET_TTL_SECONDS = 60;

const sha256 = (value: string) => createHash('sha256').update(value).digest('base64url');

export type Ticket = { ticket: string; expires_in: number };

export async function createTicket(em: EntityManager, actor: Actor, tokenDigest: string): Promise<Ticket> {
  const ticket = `evt_${randomBase64url(32)}`;
  await query(em, {
    text: `insert into stream_ticket (ticket_hash, user_id, client_id, scopes, official, token_digest, expires_at)
      values ($1, $2, $3, $4, $5, $6, now() + make_interval(secs => $7))`,
    params: [sha256(ticket), actor.userId, actor.clientId, [...actor.scopes].join(' '), actor.official, tokenDigest, TICKET_TTL_SECONDS],
  });
  return { ticket, expires_in: TICKET_TTL_SECONDS };
}

/** Uses a ticket up (compare-and-set: of parallel redemptions one wins); null if unknown, used or expired. */
export async function redeemTicket(em: EntityManager, ticket: string): Promise<{ actor: Actor; tokenDigest: string } | null> {
  if (ticket.length > 200) return null;
  const [row] = await query<{ user_id: string; client_id: string; scopes: string; official: boolean; token_digest: string }>(em, {
    text: `update stream_ticket set used_at = now()
      where ticket_hash = $1 and used_at is null and expires_at > now()
      returning user_id, client_id, scopes, official, token_digest`,
    params: [sha256(ticket)],
  });
  if (!row) return null;
  return {
    actor: { userId: row.user_id, clientId: row.client_id, scopes: new Set(row.scopes.split(' ').filter(Boolean)), official: row.official },
    tokenDigest: row.token_digest,
  };
}

/** Deletes tickets past their lifetime (used or not); returns how many. */
export async function sweepTickets(em: EntityManager): Promise<number> {
  const rows = await query<{ n: number }>(em, {
    text: `with d as (delete from stream_ticket where expires_at < now() returning 1) select count(*)::int as n from d`,
    params: [],
  });
  return rows[0]?.n ?? 0;
}
