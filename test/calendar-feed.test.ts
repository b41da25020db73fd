// The calendar feed, GET /me/calendar.ics?token=..., read by ical.js as a calendar app reads it: the
// episodes of the shows the user follows airing from 7 days ago to 90 days ahead and nothing else (not
// another user's shows, not a show unfollowed), all-day events with their exact SUMMARY, DTSTART and
// UID, UIDs stable across fetches and rotations, text escaped and folded, ETag and 304, at most 1,000
// events. Its token: a digest in the database, 404 when wrong, rotated or deleted, useless anywhere
// else, absent from the access log. The management procedures (POST, GET, DELETE /me/calendar-feed):
// exact shapes, official apps only, their scopes.
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { dayFromToday, episodeId, feedUrl, fetchFeed, parseFeed, setAirDates } from './helpers/calendar-feed.ts';
import { expectError } from './helpers/envelope.ts';
import { call, type Answer } from './helpers/http.ts';
import { memoryLog } from './helpers/memory-log.ts';
import { FIRST_SHOW, member, ok, platform, seedCatalog, tokenWith, type Member } from './helpers/seed.ts';
import { sql } from './helpers/title-fixtures.ts';

const SCOPES = ['profile:read', 'profile:write', 'ratings:write', 'history:write'];
const FEED_PATH = '/api/platform/v1/me/calendar.ics';
// The shows of the seed, by what they are to alice and bob.
const A = FIRST_SHOW; // alice: status watching; episodes on both edges of the window
const B = FIRST_SHOW + 1; // alice: a favourite; a name full of characters iCalendar escapes
const C = FIRST_SHOW + 2; // nobody's
const D = FIRST_SHOW + 3; // bob's
const E = FIRST_SHOW + 4; // alice's, unfollowed by one test

let app: TestApp;
const memory = memoryLog();
let alice: Member;
let bob: Member;
let names: Map<number, string>;
let episodeNames: Map<string, string>;

/** An answer with a JSON body (the errors of the feed route), as the envelope helper takes it. */
const asAnswer = (r: { status: number; headers: Headers; text: string }): Answer => ({ status: r.status, headers: r.headers, body: r.text ? (JSON.parse(r.text) as Record<string, unknown>) : {} });
const feedPath = (url: string) => url.slice(app.url.length);
const code = (season: number, episode: number) => `S${String(season).padStart(2, '0')}E${String(episode).padStart(2, '0')}`;

beforeAll(async () => {
  app = await startTestApp({}, { log: memory.log });
  await seedCatalog(app, { shows: 5 });
  alice = await member(app, 'alice', SCOPES, { official: true });
  bob = await member(app, 'bob', SCOPES, { official: true });
  await setAirDates(app, A, { 1: dayFromToday(-8), 2: dayFromToday(-7), 3: dayFromToday(0), 4: dayFromToday(90), 5: dayFromToday(91) });
  await setAirDates(app, B, { 1: dayFromToday(2) });
  await setAirDates(app, C, { 1: dayFromToday(1) });
  await setAirDates(app, D, { 1: dayFromToday(1) });
  await setAirDates(app, E, { 1: dayFromToday(3) });
  await sql(app, `update title set name = $2 where type = 'show' and movie_db_id = $1`, [B, 'Law, Order; "Special"\r\nEND:VEVENT\r\nVictims 🎉']);
  await sql(app, `update episode set name = $2 where title_id = (select id from title where type = 'show' and movie_db_id = $1) and season_number = 1 and episode_number = 1`, [B, `Ünïcödé 🎬 ${'long title '.repeat(18).trim()}!`]);
  await ok(platform(app, alice.token, 'PUT', `/show-status/show/${A}`, { status: 'watching' }));
  await ok(platform(app, alice.token, 'POST', '/favourites', { type: 'show', movieDbId: B }));
  await ok(platform(app, alice.token, 'PUT', `/show-status/show/${E}`, { status: 'planned' }));
  await ok(platform(app, bob.token, 'PUT', `/show-status/show/${D}`, { status: 'watching' }));
  names = new Map((await sql<{ movie_db_id: number; name: string }>(app, `select movie_db_id, name from title where type = 'show'`)).map((r) => [r.movie_db_id, r.name]));
  const eps = await sql<{ id: string; name: string }>(app, `select e.id, e.name from episode e`);
  episodeNames = new Map(eps.map((r) => [r.id, r.name]));
});
afterAll(() => app?.stop());

/** The events alice's feed should hold: (show, episode) in air-date order. */
const ALICE = [
  { show: A, episode: 2, day: () => dayFromToday(-7) },
  { show: A, episode: 3, day: () => dayFromToday(0) },
  { show: B, episode: 1, day: () => dayFromToday(2) },
  { show: E, episode: 1, day: () => dayFromToday(3) },
  { show: A, episode: 4, day: () => dayFromToday(90) },
];

describe('the feed', () => {
  it('holds an all-day event for each episode of a followed show in the window, and nothing else', async () => {
    const res = await fetchFeed(await feedUrl(app, alice.token));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/calendar; charset=utf-8');
    expect(res.headers.get('cache-control')).toBe('private, no-cache');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('etag')).toMatch(/^"[A-Za-z0-9_-]{27}"$/);
    const host = new URL(app.url).hostname;
    const feed = parseFeed(res.text);
    expect(feed.properties).toMatchObject({
      version: '2.0',
      prodid: '-//Media Tracker//Calendar feed//EN',
      'x-wr-calname': "Media Tracker: alice's shows",
      'refresh-interval': 'PT6H',
      'x-published-ttl': 'PT6H',
    });
    const expected = await Promise.all(
      ALICE.map(async (e) => {
        const id = await episodeId(app, e.show, e.episode);
        // A line break in a name reads back as \n (iCalendar's one escape for it).
        const summary = `${names.get(e.show)!.replaceAll('\r\n', '\n')} — ${code(1, e.episode)} ${episodeNames.get(id)}`;
        return { uid: `episode-${id}@${host}`, summary, start: e.day(), startType: 'date', url: `${app.url}/title/show/${e.show}` };
      }),
    );
    expect(feed.events.map(({ uid, summary, start, startType, url }) => ({ uid, summary, start, startType, url }))).toEqual(expected);
    // Season and episode, the show's page; DTSTAMP a UTC date-time.
    expect(feed.events[0]!.description).toContain(`${names.get(A)}, season 1, episode 2.`);
    expect(feed.events[0]!.description).toContain(`${app.url}/title/show/${A}`);
    expect(feed.events.every((e) => /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/.test(e.stamp))).toBe(true);
    // No all-day event carries a time, and the lines are CRLF-terminated.
    expect(res.text).toContain(`DTSTART;VALUE=DATE:${dayFromToday(0).replaceAll('-', '')}\r\n`);
    expect(/[^\r]\n/.test(res.text)).toBe(false);
  });

  it('never shows another user\'s shows: bob\'s feed has his one show only', async () => {
    const feed = parseFeed((await fetchFeed(await feedUrl(app, bob.token))).text);
    expect(feed.properties['x-wr-calname']).toBe("Media Tracker: bob's shows");
    expect(feed.events.map((e) => e.url)).toEqual([`${app.url}/title/show/${D}`]);
  });

  it('keeps each event\'s UID across fetches and after a rotation: the same data, the same bytes and ETag', async () => {
    const first = await fetchFeed(await feedUrl(app, alice.token));
    const again = await fetchFeed(await feedUrl(app, alice.token));
    expect(again.text).toBe(first.text);
    expect(again.headers.get('etag')).toBe(first.headers.get('etag'));
    expect(parseFeed(again.text).events.map((e) => e.uid)).toEqual(parseFeed(first.text).events.map((e) => e.uid));
  });

  it('escapes commas, semicolons, quotes and line breaks (no line of a name starts a property), and folds long lines at 75 octets without cutting a character', async () => {
    const res = await fetchFeed(await feedUrl(app, alice.token));
    const event = parseFeed(res.text).events.find((e) => e.url.endsWith(`/${B}`))!;
    const id = await episodeId(app, B, 1);
    expect(event.summary).toBe(`Law, Order; "Special"\nEND:VEVENT\nVictims 🎉 — S01E01 ${episodeNames.get(id)}`);
    expect(event.summary.length).toBeGreaterThan(200);
    expect(res.text).toContain('SUMMARY:Law\\, Order\\; "Special"\\nEND:VEVENT\\nVictims 🎉');
    expect(res.text.split('\r\n').filter((l) => l === 'END:VEVENT')).toHaveLength(ALICE.length);
    const lines = res.text.split('\r\n');
    expect(lines.every((l) => Buffer.byteLength(l) <= 75)).toBe(true);
    expect(lines.some((l) => l.startsWith(' '))).toBe(true);
    // Valid UTF-8 throughout: no emoji or accented letter split between two lines.
    expect(Buffer.from(res.text).toString('utf8')).toBe(res.text);
    expect(res.text).not.toContain('\uFFFD');
  });

  it('answers 304 with no body to If-None-Match naming its ETag (weak or strong), 200 to another', async () => {
    const url = await feedUrl(app, alice.token);
    const first = await fetchFeed(url);
    const etag = first.headers.get('etag')!;
    for (const tag of [etag, `W/${etag}`, `"other", ${etag}`]) {
      const again = await fetchFeed(url, { 'if-none-match': tag });
      expect(again.status, tag).toBe(304);
      expect(again.text).toBe('');
      expect(again.headers.get('etag')).toBe(etag);
    }
    const changed = await fetchFeed(url, { 'if-none-match': '"other"' });
    expect(changed.status).toBe(200);
    expect(changed.text).toBe(first.text);
    // HEAD: the headers of the feed, no body.
    const head = await call(app, feedPath(url), { method: 'HEAD' });
    expect({ status: head.status, etag: head.headers.get('etag'), type: head.headers.get('content-type'), body: head.body }).toEqual({ status: 200, etag, type: 'text/calendar; charset=utf-8', body: {} });
  });

  it('drops a show once the user unfollows it, with a new ETag', async () => {
    const url = await feedUrl(app, alice.token);
    const before = await fetchFeed(url);
    expect(parseFeed(before.text).events.some((e) => e.url.endsWith(`/${E}`))).toBe(true);
    await ok(platform(app, alice.token, 'DELETE', `/show-status/show/${E}`));
    try {
      const after = await fetchFeed(url, { 'if-none-match': before.headers.get('etag')! });
      expect(after.status).toBe(200);
      expect(parseFeed(after.text).events.map((e) => e.url)).not.toContain(`${app.url}/title/show/${E}`);
      expect(parseFeed(after.text).events).toHaveLength(ALICE.length - 1);
    } finally {
      await ok(platform(app, alice.token, 'PUT', `/show-status/show/${E}`, { status: 'planned' }));
    }
  });

  it('hides the titles and overviews of episodes not watched when the user\'s spoiler settings say so', async () => {
    const carol = await member(app, 'carol', SCOPES, { official: true });
    await ok(platform(app, carol.token, 'PUT', `/show-status/show/${A}`, { status: 'watching' }));
    await ok(platform(app, carol.token, 'POST', '/watch-history', { type: 'show', movieDbId: A, season: 1, episode: 2 }));
    await sql(app, `update episode set overview = 'The secret is out.' where title_id = (select id from title where type = 'show' and movie_db_id = $1) and season_number = 1`, [A]);
    const url = await feedUrl(app, carol.token);
    const shown = parseFeed((await fetchFeed(url)).text).events;
    expect(shown.every((e) => e.description.includes('The secret is out.'))).toBe(true);
    await ok(platform(app, carol.token, 'PATCH', '/me/preferences', { spoilers: { hideEpisodeTitles: true, hideOverviews: true } }));
    const hidden = parseFeed((await fetchFeed(url)).text).events;
    const watchedId = await episodeId(app, A, 2);
    expect(hidden.map((e) => e.summary)).toEqual([
      `${names.get(A)} — S01E02 ${episodeNames.get(watchedId)}`,
      `${names.get(A)} — S01E03`,
      `${names.get(A)} — S01E04`,
    ]);
    expect(hidden.map((e) => e.description.includes('The secret is out.'))).toEqual([true, false, false]);
    expect(hidden[0]!.description).toContain('You have watched it.');
  });

  it('holds at most 1,000 events, the earliest', async () => {
    const dave = await member(app, 'dave', SCOPES, { official: true });
    await ok(platform(app, dave.token, 'PUT', `/show-status/show/${C}`, { status: 'watching' }));
    // Season 40 of show C: 1,005 episodes from today on, twelve a day (day n / 12), besides S01E01 tomorrow.
    await sql(
      app,
      `insert into episode (title_id, season_number, episode_number, name, air_date)
       select (select id from title where type = 'show' and movie_db_id = $1), 40, n, 'Episode ' || n, $2::date + (n / 12)
       from generate_series(1, 1005) n`,
      [C, dayFromToday(0)],
    );
    try {
      const summaries = parseFeed((await fetchFeed(await feedUrl(app, dave.token))).text).events.map((e) => e.summary);
      expect(summaries).toHaveLength(1000);
      // By day, then season: S01E01 among the first, and the six of the last days cut.
      expect(summaries).toContain(`${names.get(C)} — S01E01 ${episodeNames.get(await episodeId(app, C, 1))}`);
      const numbers = summaries.filter((t) => t.includes(' — S40E')).map((t) => Number(/S40E(\d+)/.exec(t)![1]));
      expect(numbers).toEqual(Array.from({ length: 999 }, (_, i) => i + 1));
    } finally {
      await sql(app, `delete from episode where season_number = 40 and title_id = (select id from title where type = 'show' and movie_db_id = $1)`, [C]);
    }
  });
});

describe('the feed token', () => {
  it('is stored as its SHA-256 digest only, and the URL is the feed under the platform base', async () => {
    const url = await feedUrl(app, alice.token);
    expect(url).toMatch(new RegExp(`^${app.url.replaceAll('.', '\\.')}/api/platform/v1/me/calendar\\.ics\\?token=cal_[A-Za-z0-9_-]{43}$`));
    const token = new URL(url).searchParams.get('token')!;
    const rows = await sql<Record<string, unknown>>(app, `select * from calendar_feed where user_id = $1`, [alice.userId]);
    expect(rows).toHaveLength(1);
    expect(rows[0]!.token_hash).toBe(createHash('sha256').update(token).digest('base64url'));
    expect(JSON.stringify(rows)).not.toContain(token.slice(4));
  });

  it('answers 404 not_found to a wrong, malformed, missing or repeated token', async () => {
    const url = await feedUrl(app, alice.token);
    const token = new URL(url).searchParams.get('token')!;
    const wrong = `cal_${'A'.repeat(43)}`;
    for (const query of [`?token=${wrong}`, `?token=${token.slice(0, -1)}`, `?token=${token}x`, '?token=', '', `?token=${token}&token=${token}`, `?token=${token.slice(4)}`]) {
      const res = await call(app, `${FEED_PATH}${query}`);
      expectError(res, 404, 'not_found');
      expect(res.body.message).toBe('Calendar feed not found');
    }
  });

  it('answers 400 to a query parameter besides the token', async () => {
    const url = await feedUrl(app, alice.token);
    expectError(await call(app, `${feedPath(url)}&format=ics`), 400, 'invalid_request');
  });

  it('stops working once rotated: the old URL 404, the new one the same events', async () => {
    const old = await feedUrl(app, alice.token);
    const before = parseFeed((await fetchFeed(old)).text);
    const rotated = await feedUrl(app, alice.token);
    expect(rotated).not.toBe(old);
    expectError(asAnswer(await fetchFeed(old)), 404, 'not_found');
    const after = parseFeed((await fetchFeed(rotated)).text);
    expect(after.events.map((e) => e.uid)).toEqual(before.events.map((e) => e.uid));
  });

  it('stops working once the feed is deleted', async () => {
    const erin = await member(app, 'erin', SCOPES, { official: true });
    const url = await feedUrl(app, erin.token);
    expect((await fetchFeed(url)).status).toBe(200);
    expect(await ok(platform(app, erin.token, 'DELETE', '/me/calendar-feed'))).toEqual({ deleted: true });
    expectError(asAnswer(await fetchFeed(url)), 404, 'not_found');
  });

  it('reads the feed and nothing else: as a bearer token or a token parameter elsewhere it is 401', async () => {
    const token = new URL(await feedUrl(app, alice.token)).searchParams.get('token')!;
    for (const path of ['/me', '/calendar', '/me/calendar-feed', '/me/history', '/me/preferences']) {
      expectError(await platform(app, token, 'GET', path), 401, 'invalid_token');
      expectError(await call(app, `/api/platform/v1${path}?token=${token}`), 401, 'invalid_token');
    }
    expectError(await platform(app, token, 'POST', '/me/calendar-feed'), 401, 'invalid_token');
    const trpc = await call(app, '/trpc/platform.calendarFeed.get', { token });
    expect(trpc.status).toBe(401);
  });

  it('is not an access token\'s door either: a valid bearer token without the feed token is 404', async () => {
    expectError(await call(app, FEED_PATH, { token: alice.token }), 404, 'not_found');
  });

  it('never reaches the access log: the line has the path and the route, no query', async () => {
    const url = await feedUrl(app, alice.token);
    const token = new URL(url).searchParams.get('token')!;
    await fetchFeed(url);
    await fetchFeed(`${app.url}${FEED_PATH}?token=${token}x`);
    const lines = memory.lines.filter((l) => l.route === `GET ${FEED_PATH}` || String(l.path).startsWith(FEED_PATH));
    expect(lines.length).toBeGreaterThanOrEqual(2);
    expect(lines.every((l) => l.path === FEED_PATH)).toBe(true);
    expect(JSON.stringify(memory.lines)).not.toContain(token.slice(4, 20));
  });
});

describe('managing the feed', () => {
  it('POST answers the URL and its time once; GET the times, never the URL; DELETE removes it', async () => {
    const fred = await member(app, 'fred', SCOPES, { official: true });
    expectError(await platform(app, fred.token, 'GET', '/me/calendar-feed'), 404, 'not_found');
    const made = await ok(platform(app, fred.token, 'POST', '/me/calendar-feed'));
    expect(Object.keys(made).sort()).toEqual(['createdAt', 'url']);
    expect(made.createdAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(await ok(platform(app, fred.token, 'GET', '/me/calendar-feed'))).toEqual({ createdAt: made.createdAt, lastFetchedAt: null });

    const fetchedFrom = Date.now();
    await fetchFeed(made.url as string);
    const read = await ok(platform(app, fred.token, 'GET', '/me/calendar-feed'));
    expect(Object.keys(read).sort()).toEqual(['createdAt', 'lastFetchedAt']);
    expect(Date.parse(read.lastFetchedAt as string)).toBeGreaterThanOrEqual(fetchedFrom - 1000);

    // A rotation starts the URL's times over.
    const rotated = await ok(platform(app, fred.token, 'POST', '/me/calendar-feed'));
    expect(Date.parse(rotated.createdAt as string)).toBeGreaterThanOrEqual(Date.parse(made.createdAt as string));
    expect(await ok(platform(app, fred.token, 'GET', '/me/calendar-feed'))).toEqual({ createdAt: rotated.createdAt, lastFetchedAt: null });

    expect(await ok(platform(app, fred.token, 'DELETE', '/me/calendar-feed'))).toEqual({ deleted: true });
    expectError(await platform(app, fred.token, 'GET', '/me/calendar-feed'), 404, 'not_found');
    expectError(await platform(app, fred.token, 'DELETE', '/me/calendar-feed'), 404, 'not_found');
  });

  it('records a fetch to the minute: fetches within a minute leave the time', async () => {
    const gina = await member(app, 'gina', SCOPES, { official: true });
    const url = await feedUrl(app, gina.token);
    await fetchFeed(url);
    const first = (await ok(platform(app, gina.token, 'GET', '/me/calendar-feed'))).lastFetchedAt;
    await fetchFeed(url);
    expect((await ok(platform(app, gina.token, 'GET', '/me/calendar-feed'))).lastFetchedAt).toBe(first);
    await sql(app, `update calendar_feed set last_fetched_at = now() - interval '2 minutes' where user_id = $1`, [gina.userId]);
    await fetchFeed(url);
    expect(Date.parse((await ok(platform(app, gina.token, 'GET', '/me/calendar-feed'))).lastFetchedAt as string)).toBeGreaterThan(Date.now() - 60_000);
  });

  it('is for official apps only: 403 first_party_only to another app holding the scopes', async () => {
    const other = await member(app, 'hank', SCOPES);
    for (const [method, path] of [['POST', '/me/calendar-feed'], ['GET', '/me/calendar-feed'], ['DELETE', '/me/calendar-feed']] as const) {
      expectError(await platform(app, other.token, method, path), 403, 'first_party_only');
    }
  });

  it('needs profile:write to make or delete, profile:read to read, a token for all', async () => {
    const readOnly = await tokenWith(app, alice, ['profile:read']);
    const writeOnly = await tokenWith(app, alice, ['profile:write']);
    expectError(await platform(app, readOnly, 'POST', '/me/calendar-feed'), 403, 'insufficient_scope', { required_scope: 'profile:write' });
    expectError(await platform(app, readOnly, 'DELETE', '/me/calendar-feed'), 403, 'insufficient_scope', { required_scope: 'profile:write' });
    expectError(await platform(app, writeOnly, 'GET', '/me/calendar-feed'), 403, 'insufficient_scope', { required_scope: 'profile:read' });
    for (const method of ['POST', 'GET', 'DELETE']) expectError(await platform(app, null, method, '/me/calendar-feed'), 401, 'invalid_token');
  });

  it('refuses a body with anything in it', async () => {
    expectError(await platform(app, alice.token, 'POST', '/me/calendar-feed', { token: 'mine' }), 400, 'invalid_request');
  });
});
