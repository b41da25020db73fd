// The calendar feed's management (`CalendarFeed` in the platform OpenAPI document; docs/decisions.md,
// Calendar feed): official apps only (others 403 `first_party_only`): the feed's URL outlives any grant,
// so only the service's own apps make one. Making or rotating needs profile:write, reading the feed's
// dates profile:read, deleting profile:write. The feed itself is GET /me/calendar.ics (rest/calendar-feed.ts).
import { z } from 'zod';
import { FEED_DAYS_AHEAD, FEED_DAYS_BACK, FEED_MAX_EVENTS } from '../../core/calendar-feed/feed.ts';
import { calendarFeed, calendarFeedCreated } from '../../core/calendar-feed/schemas.ts';
import { CALENDAR_FEED_PATH, createFeed, deleteFeed, readFeed } from '../../core/calendar-feed/service.ts';
import { officialProcedure, router } from '../trpc.ts';

const tags = ['calendar feed'];
const OFFICIAL = 'Official apps only: other apps get 403 `first_party_only`.';
const FEED = `The feed (\`GET ${CALENDAR_FEED_PATH}?token=...\`) is an iCalendar document of the episodes of the shows the user follows (as \`GET /calendar\` counts them) from ${FEED_DAYS_BACK} days ago to ${FEED_DAYS_AHEAD} days ahead, at most ${FEED_MAX_EVENTS}, for calendar apps to subscribe to.`;

export const calendarFeedRouter = router({
  create: officialProcedure('profile:write')
    .meta({
      openapi: {
        method: 'POST', path: '/me/calendar-feed', tags, protect: true,
        summary: 'Make the user\'s calendar feed URL, or rotate it',
        description: `${FEED} The answer holds the feed's URL with its token, shown this once: only a digest of the token is kept. A user has one feed; calling again makes a new URL and the old one answers 404 from then on (rotation). The token reads this feed and nothing else. ${OFFICIAL}`,
      },
      limits: ['calendar-feed-create'],
    })
    .input(z.strictObject({}).optional())
    .output(calendarFeedCreated)
    .mutation(({ ctx }) => createFeed(ctx.em, ctx.actor.userId, (token) => `${ctx.config.baseUrl}/api/platform/v1${CALENDAR_FEED_PATH}?token=${token}`)),
  get: officialProcedure('profile:read')
    .meta({
      openapi: {
        method: 'GET', path: '/me/calendar-feed', tags, protect: true,
        summary: 'When the user\'s calendar feed URL was made and last fetched (never the URL)',
        description: `404 \`not_found\` when the user has no feed. ${OFFICIAL}`,
      },
      errors: ['not_found'],
    })
    .input(z.strictObject({}).optional())
    .output(calendarFeed)
    .query(({ ctx }) => readFeed(ctx.em, ctx.actor.userId)),
  remove: officialProcedure('profile:write')
    .meta({
      openapi: {
        method: 'DELETE', path: '/me/calendar-feed', tags, protect: true,
        summary: 'Delete the user\'s calendar feed: its URL answers 404 from then on',
        description: `404 \`not_found\` when the user has no feed. ${OFFICIAL}`,
      },
      errors: ['not_found'],
    })
    .input(z.strictObject({}).optional())
    .output(z.strictObject({ deleted: z.literal(true) }))
    .mutation(async ({ ctx }) => {
      await deleteFeed(ctx.em, ctx.actor.userId);
      return { deleted: true as const };
    }),
});
