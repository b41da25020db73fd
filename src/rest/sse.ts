// GET /playback/events: the user's live playback, Continue Watching and unread-count events as server-sent events.
// A plain Express route (the facade has no subscriptions). Authentication is the pipeline's bearer
// token (req.actor), or a single-use `?ticket=` for browser EventSource clients, which cannot send
// headers. Each event has an id (its place in the replay log): a client reconnecting with
// Last-Event-ID first gets what it missed within the replay window, then live events. Comment lines
// keep the connection alive. The connection-attempt limits (`events-token`, `events-user` in core/limits/table.ts) are counted here, per token and
// per user (a ticket counts against the token that asked for it). The stream is opened as the /trpc
// subscription opens it (live-events.ts) and written as server-sent events by sse-stream.ts. When live
// delivery is down (Redis away or stalled) a stream does not open: 503 in the envelope, with
// Retry-After, never a 200 with nothing behind it. An open stream is bound to its access token (for a
// ticket, the token that asked for it): it ends once that token no longer stands (stream-watch.ts).
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Actor } from '../core/actor.ts';
import { ApiError } from '../core/errors.ts';
import { EVENT_ID_PATTERN, STREAM_LIMITS, type OpenStream } from '../core/events/live-stream.ts';
import { redeemTicket } from '../core/events/tickets.ts';
import type { RateLimits } from '../core/limits/limiter.ts';
import { bucketsOf } from '../core/limits/table.ts';
import type { Logger } from '../core/log.ts';
import { PLATFORM_BASE } from './envelope.ts';
import { checkBuckets, clientIp, limitSubject } from './rate-limit.ts';
import { sseResponseSink } from './sse-stream.ts';
import { bearerToken, tokenKey } from '../oauth/bearer.ts';

export const EVENTS_PATH = '/playback/events';

export type SseDeps = { orm: MikroORM; log: Logger; openStream: OpenStream; limits?: RateLimits | undefined };

/** Where a reconnecting client left off; null for a new client (live events only, no replay). */
function lastEventId(req: Request): string | null {
  const raw = req.headers['last-event-id'];
  if (raw === undefined || raw === '') return null;
  if (typeof raw !== 'string' || !EVENT_ID_PATTERN.test(raw.trim())) throw new ApiError('invalid_request', 'Last-Event-ID must be an event id this stream sent');
  return raw.trim();
}

type StreamAuth = { actor: Actor; /** The stored key of the access token behind the stream. */ tokenKey: string };

/** The acting user: the bearer token's (set by the pipeline) or a redeemed ticket's, counted in the connection limits. */
async function streamActor(req: Request, res: Response, deps: SseDeps): Promise<StreamAuth> {
  const extra = Object.keys(req.query).filter((k) => k !== 'ticket');
  if (extra.length) throw new ApiError('invalid_request', `Unknown query parameter ${extra[0]}`);
  const ticket = req.query.ticket;
  if (ticket === undefined) {
    if (!req.actor) throw new ApiError('invalid_token', 'A bearer access token or a ticket is required');
    const token = bearerToken(req.headers.authorization);
    if (!token) throw new ApiError('invalid_token', 'A bearer access token or a ticket is required');
    if (deps.limits) await checkBuckets(deps.limits, deps.log, res, bucketsOf(STREAM_LIMITS, limitSubject(req)));
    return { actor: req.actor, tokenKey: tokenKey(token) };
  }
  if (typeof ticket !== 'string' || ticket === '') throw new ApiError('invalid_request', 'ticket must be one string');
  if (req.headers.authorization) throw new ApiError('invalid_request', 'Send either an Authorization header or a ticket, not both');
  const redeemed = await redeemTicket(deps.orm.em.fork(), ticket);
  if (!redeemed) throw new ApiError('invalid_token', 'The ticket is unknown, used or expired');
  if (deps.limits) {
    const buckets = bucketsOf(STREAM_LIMITS, { ip: clientIp(req), actor: redeemed.actor, tokenId: redeemed.tokenDigest });
    await checkBuckets(deps.limits, deps.log, res, buckets);
  }
  return { actor: redeemed.actor, tokenKey: redeemed.tokenKey };
}

export function playbackEvents(deps: SseDeps): RequestHandler {
  return async (req: Request, res: Response, next: NextFunction) => {
    try {
      const { actor, tokenKey: key } = await streamActor(req, res, deps);
      if (!actor.scopes.has('events:read')) {
        throw new ApiError('insufficient_scope', 'This call needs the events:read scope', { required_scope: 'events:read' });
      }
      const after = lastEventId(req);
      req.route_label = `GET ${PLATFORM_BASE}${EVENTS_PATH}`;
      await deps.openStream({ userId: actor.userId, scopes: actor.scopes, tokenKey: key, after, requestId: req.id, sink: sseResponseSink(res) });
    } catch (err) {
      next(err);
    }
  };
}
