// The table of calendar feeds: one per user at most, reached by the SHA-256 digest of the capability
// token in its URL (the token itself is never stored).
import { defineEntity, p } from '@mikro-orm/core';
import { AppUser } from './accounts.ts';

export const CalendarFeed = defineEntity({
  name: 'CalendarFeed',
  properties: {
    user: () => p.oneToOne(AppUser).owner().primary().updateRule('no action').deleteRule('cascade'),

    /** SHA-256 (base64url) of the feed's token: the feed is looked up by it, through its unique index. */
    tokenHash: p.text().unique('calendar_feed_token_hash'),

    /** When the current token was made: creating or rotating the feed makes a new one. */
    createdAt: p.datetime().defaultRaw(`now()`),

    /** The last fetch with the current token (to the minute: fetches within a minute of it leave it). */
    lastFetchedAt: p.datetime().nullable(),
  },
});
