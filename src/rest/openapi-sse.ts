// GET /playback/events in the platform OpenAPI document: an Express route (server-sent events), not a
// procedure, so it is described here by hand.
import { NOTIFICATIONS_UNREAD } from '../core/events/scopes.ts';
import { REPLAY_WINDOW_MS } from '../core/events/stream-log.ts';
import { TICKET_TTL_SECONDS } from '../core/events/tickets.ts';
import { CW_TTL_DAYS } from '../core/playback/continue-watching.ts';
import { SSE_TIMING } from '../core/events/live-stream.ts';
import type { HandWrittenErrors } from './openapi-errors.ts';
import { EVENTS_TICKET, OAUTH2 } from './openapi-security.ts';

const DESCRIPTION = `Server-sent events (\`text/event-stream\`) of the token's user: live playback and Continue Watching changes, \
and the unread count of the notifications, from any app of the user and any instance of the service. Scope \`events:read\`; \
an event that needs another scope as well says so, and is sent only to tokens that hold it.

Events (each has an \`id\`; \`data\` is JSON):
- \`playback.start\`, \`playback.pause\`, \`playback.resume\`, \`playback.progress\`, \`playback.stop\`: an accepted playback event \
that changed something. \`data\`: \`playback_session_id\`, \`state\` (\`playing\`, \`paused\`, \`stopped\`, \`watched\`), \`watched\`, \
\`media_type\`, \`movie_db_id\`, \`punchplay_id\`, \`title\`, \`season\`, \`episode\`, \`episode_end\`, \`progress\`, \
\`position_seconds\`, \`duration_seconds\`, \`event_created_at\`, \`device_id\`.
- \`continue_watching.updated\`: \`data\` is the Continue Watching item as \`GET /me/continue-watching\` lists it.
- \`continue_watching.removed\`: \`data\` is \`{id}\` (dismissed, or watched). Entries that expire (${CW_TTL_DAYS} days) send no event.
- \`${NOTIFICATIONS_UNREAD}\` (only with \`notifications:read\` too): \`data\` is \`{unread}\`, how many of the user's notifications \
are unread, as \`GET /me/notifications/unread-count\` answers it, sent whenever that may have changed: a notification was \
recorded for the user, or one or all were marked read. One event per write, carrying the count as it stands when the write \
commits (a write that records several notifications sends one). A token without \`notifications:read\` never receives it \
(its ids are skipped). Read the count once on connecting; the stream tells what changes after.

Comment lines (\`: heartbeat\`) every ${SSE_TIMING.heartbeatMs / 1000} seconds keep the connection alive. The stream ends after \
${SSE_TIMING.maxStreamMs / 60_000} minutes; reconnect then. Ids grow with time for each user. Reconnect with \`Last-Event-ID\` \
(EventSource does it by itself) to get the events after that id first, for events up to ${REPLAY_WINDOW_MS / 60_000} minutes old; \
after a longer gap read \`GET /me/continue-watching\` (and the unread count) again. A stream sends each id once, in increasing order; its first block \
carries an \`id:\` line (where it starts), so a reconnect before any event still replays from there. When live delivery is \
interrupted (the service lost its message bus for a moment) the stream ends with \`retry: ${SSE_TIMING.resumeRetryMs}\`: reconnect \
with \`Last-Event-ID\` and the missed events come first. While live events are unavailable the request is answered \
\`503\` \`server_error\` with \`Retry-After\` seconds; retry then.

Browsers: EventSource cannot send an Authorization header. Get a single-use ticket with \`POST /playback/events/ticket\` \
(bearer token, \`events:read\`; valid ${TICKET_TTL_SECONDS} seconds) and open \`GET /playback/events?ticket=...\` without the header. \
The connection counts against the limits of the token that asked for the ticket.`;

/** What the stream's own rules answer besides the pipeline's (openapi-errors.ts): 503 while live events are unavailable. */
export const sseErrors: HandWrittenErrors = { 'playback-events': [{ code: 'server_error', status: 503 }] };

export const ssePaths: Record<string, Record<string, unknown>> = {
  '/playback/events': {
    get: {
      operationId: 'playback-events',
      tags: ['playback'],
      summary: 'Live playback, Continue Watching and unread-count events (server-sent events)',
      description: DESCRIPTION,
      // The bearer token, or (browsers) a ticket from POST /playback/events/ticket in the query (`ticket`).
      security: [{ [OAUTH2]: ['events:read'] }, { [EVENTS_TICKET]: [] }],
      parameters: [
        { in: 'header', name: 'Last-Event-ID', required: false, schema: { type: 'string', pattern: '^[0-9]+$' }, description: 'The id of the last event received: the missed events come first' },
      ],
      responses: {
        '200': { description: 'The event stream', content: { 'text/event-stream': { schema: { type: 'string' } } } },
      },
    },
  },
};
