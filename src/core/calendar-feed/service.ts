// The calendar feed's management and its lookup. A user has one feed at most, made at /settings in the
// web app (official apps only): making it again rotates its token, so the old URL stops working at once.
// The feed is a credential, not library data: it is not in the change feed (the same as push devices),
// and the token is shown once, in the URL, and stored only as its digest (token.ts).
import type { EntityManager } from '@mikro-orm/postgresql';
import { notFound } from '../errors.ts';
import { deleteFeedOf, feedByTokenHash, feedOf, noteFeedFetched, storeFeedToken } from './repository.ts';
import type { CalendarFeed, CalendarFeedCreated } from './schemas.ts';
import { feedTokenHash, isFeedToken, newFeedToken } from './token.ts';
import type { FeedOwner } from './feed.ts';

/** Where the feed is served, under the platform API's base; its token goes in the `token` query parameter. */
export const CALENDAR_FEED_PATH = '/me/calendar.ics';

/** A fetch within this many seconds of the recorded one leaves it (no write per poll). */
const FETCH_NOTE_SECONDS = 60;

const NO_FEED = 'Calendar feed';

/** Makes the user's feed, or rotates its token; `feedUrl` turns the new token into the address answered. */
export async function createFeed(em: EntityManager, userId: string, feedUrl: (token: string) => string): Promise<CalendarFeedCreated> {
  const token = newFeedToken();
  const row = await storeFeedToken(em, userId, feedTokenHash(token));
  return { url: feedUrl(token), createdAt: row.created_at.toISOString() };
}

export async function readFeed(em: EntityManager, userId: string): Promise<CalendarFeed> {
  const row = await feedOf(em, userId);
  if (!row) throw notFound(NO_FEED);
  return { createdAt: row.created_at.toISOString(), lastFetchedAt: row.last_fetched_at?.toISOString() ?? null };
}

export async function deleteFeed(em: EntityManager, userId: string): Promise<void> {
  if (!(await deleteFeedOf(em, userId))) throw notFound(NO_FEED);
}

/** The feed's owner a token names, or null (a string of another shape is not looked up). */
export async function feedOwner(em: EntityManager, token: unknown): Promise<(FeedOwner & { tokenHash: string }) | null> {
  if (!isFeedToken(token)) return null;
  const tokenHash = feedTokenHash(token);
  const row = await feedByTokenHash(em, tokenHash);
  return row ? { userId: row.user_id, username: row.username, tokenHash } : null;
}

/** Records a fetch of the feed (at most once a minute). */
export function noteFetched(em: EntityManager, owner: { userId: string; tokenHash: string }): Promise<void> {
  return noteFeedFetched(em, owner.userId, owner.tokenHash, FETCH_NOTE_SECONDS);
}
