// The calendar feed in tests: its URL made through the API, fetched as a calendar app fetches it, and
// read with ical.js (an iCalendar parser of its own, not the library that wrote it); and the synthetic
// shows' episodes moved to air dates a test names.
import ICAL from 'ical.js';
import { expect } from 'vitest';
import type { TestApp } from './app.ts';
import { request } from './http.ts';
import { ok, platform } from './seed.ts';
import { sql } from './title-fixtures.ts';

const DAY_MS = 86_400_000;

/** The UTC day `n` days from today, YYYY-MM-DD. */
export const dayFromToday = (n: number) => new Date(Math.floor(Date.now() / DAY_MS) * DAY_MS + n * DAY_MS).toISOString().slice(0, 10);

/** A new feed URL (or a rotated one) through POST /me/calendar-feed. */
export async function feedUrl(app: TestApp, token: string): Promise<string> {
  return (await ok(platform(app, token, 'POST', '/me/calendar-feed'))).url as string;
}

/** A fetch of a feed URL (absolute), as a calendar app sends it. */
export function fetchFeed(url: string, headers: Record<string, string> = {}) {
  const u = new URL(url);
  return request(u.origin, `${u.pathname}${u.search}`, { headers });
}

type FeedEvent = { uid: string; summary: string; start: string; startType: string; description: string; url: string; stamp: string };
export type Feed = { properties: Record<string, string>; events: FeedEvent[] };

/** The calendar and its events as ical.js reads them (strict: a document it cannot parse throws). */
export function parseFeed(text: string): Feed {
  const calendar = new ICAL.Component(ICAL.parse(text));
  expect(calendar.name).toBe('vcalendar');
  const properties = Object.fromEntries(calendar.getAllProperties().map((p) => [p.name, String(p.getFirstValue())]));
  const events = calendar.getAllSubcomponents('vevent').map((v) => {
    const start = v.getFirstProperty('dtstart')!;
    return {
      uid: String(v.getFirstPropertyValue('uid')),
      summary: String(v.getFirstPropertyValue('summary')),
      start: String(start.getFirstValue()),
      startType: start.type,
      description: String(v.getFirstPropertyValue('description')),
      url: String(v.getFirstPropertyValue('url')),
      stamp: String(v.getFirstPropertyValue('dtstamp')),
    };
  });
  return { properties, events };
}

/** Moves every episode of the show off the calendar (1990), then each given episode (season 1) to its day. */
export async function setAirDates(app: TestApp, movieDbId: number, days: Record<number, string>): Promise<void> {
  const show = `(select id from title where type = 'show' and movie_db_id = $1)`;
  await sql(app, `update episode set air_date = date '1990-01-01' where title_id = ${show}`, [movieDbId]);
  for (const [episode, day] of Object.entries(days)) {
    const rows = await sql(app, `update episode set air_date = $3::date where title_id = ${show} and season_number = 1 and episode_number = $2 returning id`, [movieDbId, Number(episode), day]);
    expect(rows, `show ${movieDbId} S01E${episode}`).toHaveLength(1);
  }
}

/** The catalog id of a show's season 1 episode: the number in its event's UID. */
export async function episodeId(app: TestApp, movieDbId: number, episode: number): Promise<string> {
  const [row] = await sql<{ id: string }>(
    app,
    `select e.id from episode e join title t on t.id = e.title_id where t.type = 'show' and t.movie_db_id = $1 and e.season_number = 1 and e.episode_number = $2`,
    [movieDbId, episode],
  );
  return row!.id;
}
