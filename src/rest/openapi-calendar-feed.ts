// GET /me/calendar.ics in the platform OpenAPI document: an Express route (its body is iCalendar text,
// which the facade cannot send), not a procedure, so it is described here by hand.
import { FEED_DAYS_AHEAD, FEED_DAYS_BACK, FEED_MAX_EVENTS, FEED_REFRESH_SECONDS } from '../core/calendar-feed/feed.ts';
import { CALENDAR_FEED_PATH } from '../core/calendar-feed/service.ts';
import type { HandWrittenErrors } from './openapi-errors.ts';
import { CALENDAR_FEED_TOKEN } from './openapi-security.ts';

const OPERATION = 'calendarFeed-ics';

const DESCRIPTION = `The user's calendar feed (RFC 5545, \`text/calendar\`), for calendar apps to subscribe to: Google Calendar \
("From URL"), Apple Calendar (a calendar subscription; \`webcal://\` in place of \`https://\` opens it), Outlook ("Subscribe from web"). \
Its URL, token included, is answered once by \`POST /me/calendar-feed\`; the token (\`token\` in the query) reads this feed and \
nothing else, and an access token does not read it. A wrong token, one replaced by a rotation, or one whose feed was deleted: 404 \
\`not_found\`, as for a feed that never was.

Events: the episodes of the shows the user follows (as \`GET /calendar\` counts them: a favourite, a status other than \`dropped\`, \
or a watched episode of a show not dropped), airing from ${FEED_DAYS_BACK} days ago to ${FEED_DAYS_AHEAD} days ahead (UTC days), \
the earliest ${FEED_MAX_EVENTS} at most. Each is an all-day event on the episode's air date (the catalog has no air times), \
\`SUMMARY\` "Show — S01E02 Episode title", \`DESCRIPTION\` the season and episode, runtime and overview, \`URL\` the show's page in the \
web app, and \`UID\` \`episode-<episode id>@<host>\`, the same on every fetch and after a rotation, so an app updates its events \
rather than adding copies. The user's spoiler settings hide the title and the overview of episodes not watched yet. \
\`REFRESH-INTERVAL\` and \`X-PUBLISHED-TTL\` ask for a fetch every ${FEED_REFRESH_SECONDS / 3600} hours.

Caching: an \`ETag\` on every feed; a request with \`If-None-Match\` naming it is answered \`304\` with no body. \`Cache-Control: private, no-cache\`. \
The query takes \`token\` alone (another parameter: 400). An \`Authorization\` header holding no valid access token is refused \
(401) before the feed is reached; send none.`;

/** What the feed's own rules answer besides the pipeline's (openapi-errors.ts): 404 for a token that names no feed; 401 from the pipeline for a bad Authorization header. */
export const calendarFeedErrors: HandWrittenErrors = { [OPERATION]: ['not_found', 'invalid_token'] };

const EXAMPLE = [
  'BEGIN:VCALENDAR',
  'VERSION:2.0',
  'PRODID:-//Media Tracker//Calendar feed//EN',
  "NAME:Media Tracker: alice's shows",
  "X-WR-CALNAME:Media Tracker: alice's shows",
  'X-WR-CALDESC:Episodes of the shows alice follows on Media Tracker from 7 d',
  ' ays ago to 90 days ahead.',
  'REFRESH-INTERVAL;VALUE=DURATION:PT6H',
  'X-PUBLISHED-TTL:PT6H',
  'BEGIN:VEVENT',
  'UID:episode-63056@media.example.org',
  'SEQUENCE:0',
  'DTSTAMP:20250501T031500Z',
  'DTSTART;VALUE=DATE:20250503',
  'X-MICROSOFT-CDO-ALLDAYEVENT:TRUE',
  'X-MICROSOFT-MSNCALENDAR-ALLDAYEVENT:TRUE',
  "SUMMARY:Severance — S02E04 Woe's Hollow",
  'TRANSP:TRANSPARENT',
  'DESCRIPTION:Severance\\, season 2\\, episode 4.\\n50 minutes.\\n\\nhttps://medi',
  ' a.example.org/title/show/95396',
  'URL;VALUE=URI:https://media.example.org/title/show/95396',
  'END:VEVENT',
  'END:VCALENDAR',
].join('\r\n');

export const calendarFeedPaths: Record<string, Record<string, unknown>> = {
  [CALENDAR_FEED_PATH]: {
    get: {
      operationId: OPERATION,
      tags: ['calendar feed'],
      summary: 'The user\'s calendar feed (iCalendar), read with the token of its URL',
      description: DESCRIPTION,
      security: [{ [CALENDAR_FEED_TOKEN]: [] }],
      parameters: [
        { in: 'header', name: 'If-None-Match', required: false, schema: { type: 'string' }, description: 'The ETag of the feed the app has: 304 while it is unchanged' },
      ],
      responses: {
        '200': {
          description: 'The feed',
          headers: {
            ETag: { description: 'The feed\'s version, for If-None-Match', schema: { type: 'string' } },
            'Cache-Control': { description: '`private, no-cache`', schema: { type: 'string' } },
          },
          content: { 'text/calendar': { schema: { type: 'string' }, example: EXAMPLE } },
        },
        '304': {
          description: 'Not modified: the feed is still the one If-None-Match names (no body)',
          headers: { ETag: { description: 'The feed\'s version, unchanged', schema: { type: 'string' } } },
        },
      },
    },
  },
};
