// GET /playback/events: the user's live playback and Continue Watching events as server-sent events.
// A plain Express route (the facade has no subscriptions). Authentication is the pipeline's bearer
// token (req.actor), or a single-use `?ticket=` for browser EventSource clients, which cannot send
// headers. Each event has an id (its place in the replay log): a client reconnecting with
// Last-Event-ID first gets what it missed within the replay window, then live events. Comment lines
// keep the connection alive. The connection-attempt limits of the spec are counted here, per token and
// per user (a ticket counts against the token that asked for it).
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Actor } from '../core/actor.ts';
import { ApiError } from '../core/errors.ts';
import type { EventBus, StreamEvent } from '../core/events/bus.ts';
import { replayStreamEvents } from '../core/events/stream-log.ts';
import { redeemTicket } from '../core/events/tickets.ts';
import type { RateLimits } from '../core/limits/limiter.ts';
import { bucketsOf } from '../core/limits/table.ts';
import type { Logger } from '../core/log.ts';
import { PLATFORM_BASE } from './envelope.ts';
import { checkBuckets, clientIp, limitSubject } from './rate-limit.ts';
import { sseConnectionsOpen } from '../core/metrics/registry.ts';
import type { Drain } from './drain.ts';

export const EVENTS_PATH = '/playback/events';
/** The connection-attempt limits of the events stream (an Express route: it counts its own). */
const EVENTS_LIMITS = ['events-token', 'events-user'] as const;

/** Timing of every stream (tests shorten the heartbeat). */
export const SSE_TIMING = {
  /** A comment line this often, so proxies and clients see a live connection. */
  heartbeatMs: 15_000,
  /** A stream ends after this long (the life of an access token): the client reconnects with a current token or ticket. */
  maxStreamMs: 60 * 60 * 1000,
  /** EventSource reconnection delay the stream asks for (`retry:`). */
  retryMs: 3_000,
  /** The reconnection delay a stream ended by shutdown asks for: another instance takes the client at once. */
  shutdownRetryMs: 1_000,
};
/** A client this far behind (bytes not yet sent) is dropped; it reconnects and replays. */
const MAX_BUFFERED_BYTES = 1024 * 1024;

export type SseDeps = { orm: MikroORM; log: Logger; events: EventBus; limits?: RateLimits | undefined; drain?: Drain | undefined };

function format(e: StreamEvent): string {
  return `id: ${e.id}\nevent: ${e.name}\ndata: ${JSON.stringify(e.data)}\n\n`;
}

/** Where a reconnecting client left off; null for a new client (live events only, no replay). */
function lastEventId(req: Request): string | null {
  const raw = req.headers['last-event-id'];
  if (raw === undefined || raw === '') return null;
  if (typeof raw !== 'string' || !/^\d{1,18}$/.test(raw.trim())) throw new ApiError('invalid_request', 'Last-Event-ID must be an event id this stream sent');
  return raw.trim();
}

/** The acting user: the bearer token's (set by the pipeline) or a redeemed ticket's, counted in the connection limits. */
async function streamActor(req: Request, res: Response, deps: SseDeps): Promise<Actor> {
  const extra = Object.keys(req.query).filter((k) => k !== 'ticket');
  if (extra.length) throw new ApiError('invalid_request', `Unknown query parameter ${extra[0]}`);
  const ticket = req.query.ticket;
  if (ticket === undefined) {
    if (!req.actor) throw new ApiError('invalid_token', 'A bearer access token or a ticket is required');
    if (deps.limits) await checkBuckets(deps.limits, deps.log, res, bucketsOf(EVENTS_LIMITS, limitSubject(req)));
    return req.actor;
  }
  if (typeof ticket !== 'string' || ticket === '') throw new ApiError('invalid_request', 'ticket must be one string');
  if (req.headers.authorization) throw new ApiError('invalid_request', 'Send either an Authorization header or a ticket, not both');
  const redeemed = await redeemTicket(deps.orm.em.fork(), ticket);
  if (!redeemed) throw new ApiError('invalid_token', 'The ticket is unknown, used or expired');
  if (deps.limits) {
    const buckets = bucketsOf(EVENTS_LIMITS, { ip: clientIp(req), actor: redeemed.actor, tokenId: redeemed.tokenDigest });
    await checkBuckets(deps.limits, deps.log, res, buckets);
  }
  return redeemed.actor;
}

export function playbackEvents(deps: SseDeps): RequestHandler {
  return async (req: Request, res: Response, next: NextFunction) => {
    let actor: Actor;
    let after: string | null;
    try {
      actor = await streamActor(req, res, deps);
      if (!actor.scopes.has('events:read')) {
        throw new ApiError('insufficient_scope', 'This call needs the events:read scope', { required_scope: 'events:read' });
      }
      after = lastEventId(req);
    } catch (err) {
      next(err);
      return;
    }
    req.route_label = `GET ${PLATFORM_BASE}${EVENTS_PATH}`;

    // Subscribe first and hold live events back until the replay is written, so nothing falls between.
    let held: StreamEvent[] | null = [];
    let ended = false;
    const send = (e: StreamEvent) => {
      if (ended) return;
      res.write(format(e));
      if (res.writableLength > MAX_BUFFERED_BYTES) end();
    };
    const timers: ReturnType<typeof setTimeout>[] = [];
    let unsubscribe = () => {};
    let forgetDrain = () => {};
    let open = false;
    const end = () => {
      if (ended) return;
      ended = true;
      for (const t of timers) clearTimeout(t);
      unsubscribe();
      forgetDrain();
      if (open) sseConnectionsOpen.dec();
      res.end();
    };
    try {
      unsubscribe = await deps.events.subscribe(actor.userId, {
        onEvent: (e) => (held ? held.push(e) : send(e)),
        onClose: end,
      });
    } catch (err) {
      deps.log.error({ request_id: req.id, err }, 'event stream subscription failed');
      next(new ApiError('server_error', 'Live events are unavailable; retry shortly'));
      return;
    }
    // The response's close: the client went away (the request's own close fires once its body is read).
    res.on('close', end);
    try {
      const missed = after === null ? [] : await replayStreamEvents(deps.orm.em.fork(), actor.userId, after);
      res.status(200);
      res.setHeader('Content-Type', 'text/event-stream; charset=utf-8');
      res.setHeader('Cache-Control', 'no-cache, no-transform');
      res.setHeader('X-Accel-Buffering', 'no');
      res.flushHeaders();
      res.write(`retry: ${SSE_TIMING.retryMs}\n: connected\n\n`);
      open = true;
      sseConnectionsOpen.inc();
      // Shutdown: a shorter reconnection delay and a last comment, then the end (the client reconnects
      // with Last-Event-ID, to another instance, and replays what it missed).
      forgetDrain = deps.drain?.onDrain(() => {
        if (ended) return;
        res.write(`retry: ${SSE_TIMING.shutdownRetryMs}\n: server shutting down; reconnect\n\n`);
        end();
      }) ?? forgetDrain;
      for (const e of missed) send(e);
      // Held events the replay already had (committed before it read) are not sent twice.
      const replayed = new Set(missed.map((e) => e.id));
      const live: StreamEvent[] = held;
      held = null;
      for (const e of live) if (!replayed.has(e.id) && (after === null || BigInt(e.id) > BigInt(after))) send(e);
    } catch (err) {
      if (!res.headersSent) {
        ended = true;
        unsubscribe();
        next(err);
        return;
      }
      deps.log.error({ request_id: req.id, err }, 'event stream replay failed');
      end();
      return;
    }
    if (ended) return;
    const heartbeat = () => {
      if (ended) return;
      res.write(': heartbeat\n\n');
      timers[0] = setTimeout(heartbeat, SSE_TIMING.heartbeatMs);
    };
    timers[0] = setTimeout(heartbeat, SSE_TIMING.heartbeatMs);
    timers[1] = setTimeout(end, SSE_TIMING.maxStreamMs);
  };
}
