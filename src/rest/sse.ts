// GET /playback/events: the user's live playback and Continue Watching events as server-sent events.
// A plain Express route (the facade has no subscriptions). Authentication is the pipeline's bearer
// token (req.actor), or a single-use `?ticket=` for browser EventSource clients, which cannot send
// headers. Each event has an id (its place in the replay log): a client reconnecting with
// Last-Event-ID first gets what it missed within the replay window, then live events. Comment lines
// keep the connection alive. The connection-attempt limits (`events-token`, `events-user` in core/limits/table.ts) are counted here, per token and
// per user (a ticket counts against the token that asked for it). The stream itself is sse-stream.ts.
// When live delivery is down (Redis away or stalled) a stream does not open: 503 in the envelope, with
// Retry-After, never a 200 with nothing behind it. An open stream is bound to its access token (for a
// ticket, the token that asked for it): it ends once that token no longer stands (stream-watch.ts).
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Actor } from '../core/actor.ts';
import { ApiError } from '../core/errors.ts';
import type { EventBus } from '../core/events/bus.ts';
import { redeemTicket } from '../core/events/tickets.ts';
import type { RateLimits } from '../core/limits/limiter.ts';
import { bucketsOf } from '../core/limits/table.ts';
import type { Logger } from '../core/log.ts';
import { PLATFORM_BASE } from './envelope.ts';
import { checkBuckets, clientIp, limitSubject } from './rate-limit.ts';
import { LiveStream, StreamUnavailable } from './sse-stream.ts';
import { StreamWatch } from './stream-watch.ts';
import { bearerToken, tokenKey } from '../oauth/bearer.ts';
import type { Drain } from './drain.ts';

export const EVENTS_PATH = '/playback/events';
/** The connection-attempt limits of the events stream (an Express route: it counts its own). */
const EVENTS_LIMITS = ['events-token', 'events-user'] as const;

/** Seconds a client told that live events are unavailable waits before it tries again. */
const UNAVAILABLE_RETRY_S = 2;

export type SseDeps = { orm: MikroORM; log: Logger; events: EventBus; limits?: RateLimits | undefined; drain?: Drain | undefined };

/** Where a reconnecting client left off; null for a new client (live events only, no replay). */
function lastEventId(req: Request): string | null {
  const raw = req.headers['last-event-id'];
  if (raw === undefined || raw === '') return null;
  if (typeof raw !== 'string' || !/^\d{1,18}$/.test(raw.trim())) throw new ApiError('invalid_request', 'Last-Event-ID must be an event id this stream sent');
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
    if (deps.limits) await checkBuckets(deps.limits, deps.log, res, bucketsOf(EVENTS_LIMITS, limitSubject(req)));
    return { actor: req.actor, tokenKey: tokenKey(token) };
  }
  if (typeof ticket !== 'string' || ticket === '') throw new ApiError('invalid_request', 'ticket must be one string');
  if (req.headers.authorization) throw new ApiError('invalid_request', 'Send either an Authorization header or a ticket, not both');
  const redeemed = await redeemTicket(deps.orm.em.fork(), ticket);
  if (!redeemed) throw new ApiError('invalid_token', 'The ticket is unknown, used or expired');
  if (deps.limits) {
    const buckets = bucketsOf(EVENTS_LIMITS, { ip: clientIp(req), actor: redeemed.actor, tokenId: redeemed.tokenDigest });
    await checkBuckets(deps.limits, deps.log, res, buckets);
  }
  return { actor: redeemed.actor, tokenKey: redeemed.tokenKey };
}

export function playbackEvents(deps: SseDeps): RequestHandler {
  // One per app (instance): it re-checks the tokens of this instance's open streams.
  const watch = new StreamWatch(deps.orm, deps.log);
  return async (req: Request, res: Response, next: NextFunction) => {
    let actor: Actor;
    let after: string | null;
    let key: string;
    let passwordMark: string | null;
    try {
      ({ actor, tokenKey: key } = await streamActor(req, res, deps));
      if (!actor.scopes.has('events:read')) {
        throw new ApiError('insufficient_scope', 'This call needs the events:read scope', { required_scope: 'events:read' });
      }
      after = lastEventId(req);
      // Read with the statement the watch repeats, so a password set from here on ends the stream.
      const standing = await watch.standing(key);
      if (!standing) throw new ApiError('invalid_token', 'The access token is no longer valid');
      passwordMark = standing.passwordMark;
    } catch (err) {
      next(err);
      return;
    }
    req.route_label = `GET ${PLATFORM_BASE}${EVENTS_PATH}`;
    const stream = new LiveStream(res, actor.userId, { orm: deps.orm, log: deps.log, events: deps.events, requestId: req.id });
    try {
      await stream.open(after);
    } catch (err) {
      const unavailable = err instanceof StreamUnavailable;
      deps.log[unavailable ? 'warn' : 'error']({ request_id: req.id, err }, 'event stream could not open');
      next(unavailable ? new ApiError('server_error', 'Live events are unavailable right now; retry shortly', { retry_after: UNAVAILABLE_RETRY_S }, 503) : err);
      return;
    }
    // Shutdown: a shorter reconnection delay and a last comment, then the end (the client reconnects
    // with Last-Event-ID, to another instance, and replays what it missed).
    const forgetDrain = deps.drain?.onDrain(() => stream.resume('server shutting down'));
    if (forgetDrain) stream.onEnd(forgetDrain);
    stream.onEnd(
      watch.add({
        tokenKey: key,
        passwordMark,
        end: (reason) => (reason === 'token' ? stream.close('access revoked') : stream.resume('signed out: the password was set')),
      }),
    );
  };
}
