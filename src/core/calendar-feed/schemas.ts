// Wire shapes of the calendar feed's management (`CalendarFeed`, `CalendarFeedCreated` in the platform
// OpenAPI document). The token is in the URL answered once, at creation or rotation, and never again.
import { z } from 'zod';

const FETCHED = 'ISO 8601 date-time of the latest fetch of the feed with this URL (recorded to the minute), or null before the first.';

export const calendarFeed = z
  .strictObject({
    createdAt: z.string().describe('ISO 8601 date-time the current URL was made (creating or rotating the feed makes a new one).'),
    lastFetchedAt: z.string().nullable().describe(FETCHED),
  })
  .meta({ id: 'CalendarFeed' });
export type CalendarFeed = z.infer<typeof calendarFeed>;

export const calendarFeedCreated = z
  .strictObject({
    url: z.string().describe('The feed\'s address, token included: shown this once. Subscribe to it in a calendar app (as webcal:// or https://).'),
    createdAt: z.string().describe('ISO 8601 date-time the URL was made.'),
  })
  .meta({ id: 'CalendarFeedCreated' });
export type CalendarFeedCreated = z.infer<typeof calendarFeedCreated>;
