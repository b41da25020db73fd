// The calendar feed's content: the episodes of the shows the user follows (the calendar's own reading
// of "follows": titles/repository.ts) airing from FEED_DAYS_BACK days ago to FEED_DAYS_AHEAD days ahead,
// at most FEED_MAX_EVENTS of them (the earliest), as an iCalendar document (RFC 5545) written by
// ical-generator, which escapes text and folds long lines at 75 octets.
//
// Each episode is an all-day event on its air date: the catalog knows no air time. Its UID is the
// episode's catalog id at the service's host, so a calendar app that fetches the feed again (or with a
// rotated token) updates the events it has instead of adding copies. DTSTAMP is the time the show's
// catalog record last changed, not the time of the fetch, so the same data makes the same bytes and
// the same ETag. The user's spoiler settings apply: an episode not watched yet loses its title
// (`hideEpisodeTitles`) or its overview (`hideOverviews`) as the apps show it.
import type { EntityManager } from '@mikro-orm/postgresql';
import ical, { ICalEventTransparency } from 'ical-generator';
import { preferencesOf } from '../profile/repository.ts';
import { calendarEntries } from '../titles/repository.ts';
import { utcDay } from '../titles/user-state.ts';

export const FEED_DAYS_BACK = 7;
export const FEED_DAYS_AHEAD = 90;
export const FEED_MAX_EVENTS = 1000;
/** What the feed asks calendar apps to wait between fetches (REFRESH-INTERVAL and X-PUBLISHED-TTL). */
export const FEED_REFRESH_SECONDS = 6 * 3600;

const DAY_MS = 86_400_000;
const SERVICE_NAME = 'Media Tracker';

export type FeedOwner = { userId: string; username: string };
/** `baseUrl`: the service's (BASE_URL): the web app's title pages and the events' UIDs come from it. */
export type FeedSite = { baseUrl: string };

const pad = (n: number) => String(n).padStart(2, '0');

/** The window of air dates, [from, until), around `now` (UTC days). */
function feedWindow(now: Date): { from: string; until: string } {
  const today = Date.parse(`${utcDay(now)}T00:00:00Z`);
  return { from: utcDay(new Date(today - FEED_DAYS_BACK * DAY_MS)), until: utcDay(new Date(today + (FEED_DAYS_AHEAD + 1) * DAY_MS)) };
}

type Row = Awaited<ReturnType<typeof calendarEntries>>[number];
type Spoilers = { hideTitle: boolean; hideOverview: boolean };

function describe(r: Row, titleUrl: string, spoilers: Spoilers): string {
  const lines = [`${r.name}, season ${r.season_number}, episode ${r.episode_number}.`];
  if (r.runtime_minutes) lines.push(`${r.runtime_minutes} minutes.`);
  if (r.watched) lines.push('You have watched it.');
  if (r.episode_overview && !spoilers.hideOverview) lines.push('', r.episode_overview);
  lines.push('', titleUrl);
  return lines.join('\n');
}

/** The user's feed as iCalendar text, as of `now`. */
export async function feedCalendar(em: EntityManager, owner: FeedOwner, site: FeedSite, now = new Date()): Promise<string> {
  const window = feedWindow(now);
  const [rows, prefs] = await Promise.all([
    calendarEntries(em, { userId: owner.userId, ...window, withWatched: true, limit: FEED_MAX_EVENTS }),
    preferencesOf(em, owner.userId, false),
  ]);
  const host = new URL(site.baseUrl).hostname;
  const calendar = ical({
    name: `${SERVICE_NAME}: ${owner.username}'s shows`,
    // No comma: ical-generator writes X-WR-CALDESC unescaped.
    description: `Episodes of the shows ${owner.username} follows on ${SERVICE_NAME} from ${FEED_DAYS_BACK} days ago to ${FEED_DAYS_AHEAD} days ahead.`,
    prodId: { company: SERVICE_NAME, product: 'Calendar feed', language: 'EN' },
    ttl: FEED_REFRESH_SECONDS,
  });
  for (const r of rows) {
    const unwatched = !r.watched;
    const spoilers = { hideTitle: unwatched && !!prefs?.hide_episode_titles, hideOverview: unwatched && !!prefs?.hide_overviews };
    const code = `S${pad(r.season_number)}E${pad(r.episode_number)}`;
    const titleUrl = `${site.baseUrl}/title/show/${r.movie_db_id}`;
    calendar.createEvent({
      id: `episode-${r.episode_id}@${host}`,
      // Never null: the calendar reads episodes by their air date.
      start: r.air_date!,
      allDay: true,
      stamp: r.updated_at,
      summary: `${r.name} — ${code}${r.episode_name && !spoilers.hideTitle ? ` ${r.episode_name}` : ''}`,
      description: describe(r, titleUrl, spoilers),
      url: titleUrl,
      // An episode airing does not make the user busy.
      transparency: ICalEventTransparency.TRANSPARENT,
    });
  }
  return calendar.toString();
}
