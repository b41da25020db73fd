// Procedures of the playback module: playback events (scrobbling), Continue Watching, the tickets
// browser EventSource clients use to open GET /playback/events (an Express route: rest/sse.ts), and the
// same live events as a /trpc subscription (`events`; not on the REST facade, which has no subscriptions).
import { z } from 'zod';
import { ApiError } from '../../core/errors.ts';
import { CW_TTL_DAYS, listContinueWatching } from '../../core/playback/continue-watching.ts';
import { continueWatchingItem, IGNORED_REASONS, playbackEventInput, playbackResponse } from '../../core/playback/schemas.ts';
import { dismissContinueWatching, recordPlaybackEvent } from '../../core/playback/service.ts';
import { STATE_TABLE } from '../../core/playback/state.ts';
import { createTicket, TICKET_TTL_SECONDS } from '../../core/events/tickets.ts';
import { tokenBucketId } from '../../core/limits/table.ts';
import { EVENT_ID_PATTERN, STREAM_LIMITS } from '../../core/events/live-stream.ts';
import { bearerToken, tokenKey } from '../../oauth/bearer.ts';
import { subscriptionEvents } from '../live-subscription.ts';
import { wireId, wireInt } from '../../core/wire/numbers.ts';
import { platformProcedure, router } from '../trpc.ts';

const EVENT_DESCRIPTION = `Scrobbling and live playback state. \`start\`, \`progress\`, \`pause\` and \`resume\` report live playback; a \
passive resume import sends one incomplete \`stop\`. A \`stop\` completes the watch with \`watched: true\`, or at or over \
\`watched_threshold\` (default 0.8) unless \`watched: false\`: it logs one history entry per episode (multi-episode files: \
up to \`episode_end\`), once per \`playback_session_id\`. An incomplete \`stop\` keeps Continue Watching progress. Events of \
a session apply in \`event_created_at\` order: an older delayed event never replaces newer progress (it is accepted with \
\`ignored\`). A repeated \`event_id\` (per user, kept 7 days) answers the first answer with \`deduped: true\`.

Media resolves by \`punchplay_id\` (the service's title id, \`movie-129\`, \`show-9000001\`), then \`movie_db_id\`, \`tv_db_id\`, \
\`film_db_id\`, then \`title\` + \`year\`; an episode by \`season\` + \`episode\`, or by \`absolute_episode\` (tried first for \
anime). Nothing found: 422 \`media_not_found\`.

\`ignored\` (null when the event changed something): ${IGNORED_REASONS.map((r) => `\`${r}\``).join(', ')}.

Session states and transitions:

${STATE_TABLE}`;

const dismissed = z.object({ id: z.number().int().min(1), dismissed: z.literal(true) }).strict();

export const playbackRouter = router({
  event: platformProcedure('playback:write')
    .meta({ openapi: { method: 'POST', path: '/playback/{action}', tags: ['playback'], summary: 'Report a playback event (start, pause, resume, stop, progress)', description: EVENT_DESCRIPTION, protect: true }, limits: ['playback'], errors: ['playback_state_conflict', 'media_not_found'] })
    .input(playbackEventInput)
    .output(playbackResponse)
    .mutation(({ ctx, input }) => recordPlaybackEvent(ctx.em, ctx.actor, input)),

  continueWatching: platformProcedure('playback:read')
    .meta({
      openapi: {
        method: 'GET',
        path: '/me/continue-watching',
        tags: ['playback'],
        summary: 'Continue Watching: titles in progress, most recently played first',
        description: `One entry per title (a show's entry holds its episode in progress). Entries expire ${CW_TTL_DAYS} days after their last playback event. Paging: pass \`nextCursor\` as \`cursor\` with the same \`limit\`; the last page has no \`nextCursor\`.`,
        protect: true,
      },
    })
    .input(z.object({ cursor: z.string().min(1).max(500).optional(), limit: wireInt(1, 100).default(50) }).strict())
    .output(z.object({ items: z.array(continueWatchingItem), nextCursor: z.string().optional() }).strict())
    .query(({ ctx, input }) => listContinueWatching(ctx.em, ctx.actor.userId, input)),

  dismissContinueWatching: platformProcedure('playback:write')
    .meta({
      openapi: {
        method: 'DELETE',
        path: '/me/continue-watching/{id}',
        tags: ['playback'],
        summary: 'Dismiss a Continue Watching entry',
        description: 'The entry leaves Continue Watching and comes back only with playback newer than the dismissal (by `event_created_at`). 404 when the user has no such listed entry.',
        protect: true,
      },
    })
    .input(z.object({ id: wireId() }).strict())
    .output(dismissed)
    .mutation(async ({ ctx, input }) => {
      await dismissContinueWatching(ctx.em, ctx.actor.userId, input.id);
      return { id: input.id, dismissed: true as const };
    }),

  eventsTicket: platformProcedure('events:read')
    .meta({
      openapi: {
        method: 'POST',
        path: '/playback/events/ticket',
        tags: ['playback'],
        summary: 'A single-use ticket to open GET /playback/events without an Authorization header (browser EventSource)',
        description: `The ticket opens one stream within ${TICKET_TTL_SECONDS} seconds, as \`GET /playback/events?ticket=...\`, for this token's user, app and scopes; that connection counts against this token's connection limits.`,
        protect: true,
      },
    })
    .input(z.object({}).strict().optional())
    .output(z.object({ ticket: z.string(), expires_in: z.number().int() }).strict())
    .mutation(({ ctx }) => {
      const header = ctx.headers.authorization;
      const token = typeof header === 'string' ? /^Bearer\s+(\S+)\s*$/i.exec(header)?.[1] : undefined;
      if (!token) throw new ApiError('invalid_token', 'A bearer access token is required');
      return createTicket(ctx.em, ctx.actor, { digest: tokenBucketId(token), key: tokenKey(token) });
    }),

  // The user's live playback, Continue Watching and unread-count events, as GET /playback/events sends
  // them (same ids, replay after `lastEventId`, the same events left out for a token without their scope,
  // limits, heartbeat, and end when the token no longer stands). tRPC's
  // client sends `lastEventId` itself when it reconnects. Only a bearer header opens it: a token in the
  // URL (tRPC's connectionParams) would be written to access logs.
  events: platformProcedure('events:read')
    // Counted here, not through meta.limits: the limits table names these buckets as counted by the
    // Express route (GET /playback/events), and this is the second door to the same buckets.
    .use(async ({ ctx, next }) => {
      await ctx.countLimits?.(STREAM_LIMITS, 'playback.events');
      return next();
    })
    .input(z.object({ lastEventId: z.string().regex(EVENT_ID_PATTERN, 'must be an event id this stream sent').optional() }).strict().optional())
    .subscription(({ ctx, input, signal }) => {
      const token = bearerToken(typeof ctx.headers.authorization === 'string' ? ctx.headers.authorization : undefined);
      if (!token) throw new ApiError('invalid_token', 'A bearer access token is required');
      if (!ctx.openStream) throw new ApiError('server_error', 'Live events are not served here', undefined, 503);
      return subscriptionEvents(
        ctx.openStream,
        { userId: ctx.actor.userId, scopes: ctx.actor.scopes, tokenKey: tokenKey(token), after: input?.lastEventId ?? null, requestId: ctx.requestId },
        signal,
      );
    }),
});
