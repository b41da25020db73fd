// Apps written for Trakt, unchanged but for their base URL, against the running service: the `trakt.tv`
// npm client (got-based; `api_url` = `{BASE_URL}/trakt`) and `@dvcol/trakt-http-client` (fetch-based,
// TypeScript; `endpoint` = the root of TRAKT_API_PORT's listener, since it resolves most paths against
// the host and would lose a `/trakt` path). Each signs in with the device flow as a TV app does (the code
// approved in Chromium by the user, as test/oauth-device.test.ts does), as a public app, then drives
// what such an app does:
// scrobble a movie start to stop, sync history in and out, read last_activities, make a list and fill
// it, search.
import { createRequire } from 'node:module';
import { TraktClient } from '@dvcol/trakt-http-client';
import { traktApi } from '@dvcol/trakt-http-client/api';
import type { Browser, BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, startTestApp, type TestApp } from './helpers/app.ts';
import { launchBrowser } from './helpers/browser.ts';
import { makeApp, makeUser, PASSWORD } from './helpers/oauth.ts';
import { seedCatalog, SPIRITED_AWAY } from './helpers/seed.ts';

/** What this test uses of `trakt.tv` (a CommonJS module without types): its constructor and the calls it makes from methods.json. */
type Call = (params?: Record<string, unknown>) => Promise<unknown>;
type TraktTv = {
  get_codes(): Promise<DeviceCodes>;
  poll_access(codes: DeviceCodes): Promise<Record<string, unknown>>;
  export_token(): { access_token: string; refresh_token: string; expires: number };
  scrobble: { start: Call; stop: Call };
  sync: { history: { add: Call; get: Call }; last_activities: Call };
  users: { settings: Call; lists: { create: Call }; list: { items: { add: Call; get: Call } } };
  search: { text: Call };
};
type DeviceCodes = { device_code: string; user_code: string; verification_url: string; expires_in: number; interval: number };
const TraktTvClient = createRequire(import.meta.url)('trakt.tv') as new (settings: { client_id: string; client_secret: string; api_url: string }) => TraktTv;

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{3})?Z$/;

let app: TestApp;
let browser: Browser;

beforeAll(async () => {
  app = await startTestApp({ TRAKT_API_PORT: String(await freePort()) });
  await seedCatalog(app, { shows: 1 });
  await makeUser(app, 'alice');
  await makeUser(app, 'bob');
  await makeUser(app, 'carol');
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await app?.stop();
});

/**
 * The user's side of Trakt's device flow: open the verification_url the app shows, type the user_code,
 * confirm it matches, sign in, allow. The browser context is the user's own (a fresh one signs in).
 */
async function approveOnDevicePage(context: BrowserContext, codes: { verification_url: string; user_code: string }, username: string): Promise<void> {
  const page = await context.newPage();
  await page.goto(codes.verification_url);
  await page.getByLabel('Code shown on your device').fill(codes.user_code);
  await page.getByRole('button', { name: 'Continue' }).click();
  await page.getByRole('button', { name: 'Yes, it matches' }).click();
  await page.getByLabel('Username').fill(username);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('button', { name: 'Allow' }).click();
  await page.getByRole('heading', { name: 'Device connected' }).waitFor();
  await page.close();
}

/** Asserts a Trakt movie object for Spirited Away in its standard (minimal) shape. */
function expectSpiritedAway(movie: unknown): void {
  expect(movie).toEqual({
    title: 'Spirited Away',
    year: 2001,
    ids: { trakt: expect.any(Number), slug: expect.stringMatching(/^spirited-away/), imdb: 'tt0245429', tmdb: SPIRITED_AWAY },
  });
}

// A device (a TV app) is a public app: trakt.tv's device code request carries client_id alone, which the
// authorization server takes from a public app only (a confidential one authenticates there too; see
// docs/trakt-compatibility.md). trakt.tv makes no signed-in call without a secret setting, so the public
// app gives it any text (a public app's secret is not checked).
describe.each([
  { kind: 'public', username: 'carol' },
])('trakt.tv (npm, 8.2.0) at {BASE_URL}/trakt, a $kind app', ({ kind, username }) => {
  let client: TraktTv;

  it('signs in with the device flow: get_codes, the user approves, poll_access gets Trakt\'s token answer', async () => {
    const created = await makeApp(app, { confidential: kind === 'confidential', name: `Trakt TV ${kind} app` });
    client = new TraktTvClient({ client_id: created.client_id, client_secret: created.client_secret ?? 'a public app has none', api_url: `${app.url}/trakt` });
    const codes = await client.get_codes();
    expect(codes).toEqual({
      device_code: expect.any(String),
      user_code: expect.stringMatching(/^[A-Z0-9-]+$/),
      verification_url: expect.stringMatching(new RegExp(`^${app.url}/`)),
      expires_in: expect.any(Number),
      interval: 5,
    });
    const context = await browser.newContext();
    const [token] = await Promise.all([client.poll_access(codes), approveOnDevicePage(context, codes, username)]);
    await context.close();
    expect(token).toEqual({
      access_token: expect.any(String),
      token_type: 'bearer',
      expires_in: expect.any(Number),
      refresh_token: expect.any(String),
      scope: expect.any(String),
      created_at: expect.any(Number),
    });
    expect(Math.abs((token.created_at as number) - Date.now() / 1000)).toBeLessThan(600);
    expect(client.export_token().access_token).toBe(token.access_token);
    const settings = (await client.users.settings()) as { user: { username: string } };
    expect(settings.user.username).toBe(username);
  });

  it('scrobbles a movie: start at 10 %, stop at 95 % (past Trakt\'s 80 %: recorded as a watch)', async () => {
    const start = (await client.scrobble.start({ movie: { ids: { tmdb: SPIRITED_AWAY } }, progress: 10 })) as Record<string, unknown>;
    expect(start).toMatchObject({ id: expect.any(Number), action: 'start', progress: 10 });
    expectSpiritedAway(start.movie);
    const stop = (await client.scrobble.stop({ movie: { ids: { tmdb: SPIRITED_AWAY } }, progress: 95 })) as Record<string, unknown>;
    expect(stop).toMatchObject({ id: expect.any(Number), action: 'scrobble', progress: 95 });
    expectSpiritedAway(stop.movie);
  });

  it('adds history and reads it back, newest first, with the scrobble\'s watch', async () => {
    const added = (await client.sync.history.add({ movies: [{ ids: { tmdb: SPIRITED_AWAY }, watched_at: '2024-03-01T20:00:00.000Z' }, { ids: { tmdb: 999_999_999 } }] })) as Record<string, unknown>;
    expect(added).toMatchObject({
      added: { movies: 1, episodes: 0 },
      not_found: expect.objectContaining({ movies: [{ ids: { tmdb: 999_999_999 } }] }),
    });
    const history = (await client.sync.history.get({ type: 'movies' })) as Record<string, unknown>[];
    expect(history.map((h) => h.action)).toEqual(['scrobble', 'watch']);
    for (const h of history) {
      expect(h).toEqual({ id: expect.any(Number), watched_at: expect.stringMatching(ISO), action: h.action, type: 'movie', movie: expect.anything() });
      expectSpiritedAway(h.movie);
    }
    expect(history[1]!.watched_at).toBe('2024-03-01T20:00:00.000Z');
  });

  it('reads last_activities: movies watched_at moved by the writes above', async () => {
    const activities = (await client.sync.last_activities()) as { all: string; movies: Record<string, string>; episodes: Record<string, string>; lists: Record<string, string> };
    expect(activities.all).toMatch(ISO);
    expect(activities.movies.watched_at).toMatch(ISO);
    expect(Date.parse(activities.movies.watched_at!)).toBeGreaterThan(Date.now() - 10 * 60_000);
    for (const group of [activities.movies, activities.episodes, activities.lists]) for (const at of Object.values(group)) expect(at).toMatch(ISO);
  });

  it('makes a list, adds a movie to it and reads its items', async () => {
    const list = (await client.users.lists.create({ username: 'me', name: 'Ghibli', description: 'Studio Ghibli', privacy: 'private' })) as Record<string, unknown>;
    expect(list).toMatchObject({ name: 'Ghibli', description: 'Studio Ghibli', privacy: 'private', item_count: 0, ids: { trakt: expect.any(Number), slug: 'ghibli' } });
    const id = (list.ids as { trakt: number }).trakt;
    const added = (await client.users.list.items.add({ username: 'me', id, movies: [{ ids: { tmdb: SPIRITED_AWAY } }] })) as Record<string, unknown>;
    expect(added).toMatchObject({ added: { movies: 1 }, existing: { movies: 0 }, not_found: expect.objectContaining({ movies: [] }) });
    const items = (await client.users.list.items.get({ username: 'me', id })) as Record<string, unknown>[];
    expect(items).toHaveLength(1);
    expect(items[0]).toMatchObject({ rank: 1, id: expect.any(Number), listed_at: expect.stringMatching(ISO), type: 'movie' });
    expectSpiritedAway(items[0]!.movie);
  });

  it('searches by text', async () => {
    const results = (await client.search.text({ type: 'movie', query: 'Spirited Away' })) as Record<string, unknown>[];
    expect(results.length).toBeGreaterThan(0);
    expect(results[0]).toMatchObject({ type: 'movie', score: expect.any(Number) });
    expectSpiritedAway(results[0]!.movie);
  });
});

describe('@dvcol/trakt-http-client (npm, 1.7.0) at the root of TRAKT_API_PORT', () => {
  let client: TraktClient;

  it('signs in with the device flow (getDeviceCode, pollWithDeviceCode) and is answered as bob', async () => {
    // A public app (the confidential case of the same device code request is trakt.tv's above).
    const created = await makeApp(app, { confidential: false, name: 'Dvcol app' });
    client = new TraktClient(
      { client_id: created.client_id, client_secret: 'a public app has none', redirect_uri: 'urn:ietf:wg:oauth:2.0:oob', useragent: 'trakt-clients-test', endpoint: app.traktUrl! },
      {},
      traktApi,
    );
    const codes = await client.getDeviceCode();
    expect(codes.verification_url).toMatch(new RegExp(`^${app.url}/`));
    const context = await browser.newContext();
    await Promise.all([client.pollWithDeviceCode(codes), approveOnDevicePage(context, codes, 'bob')]);
    await context.close();
    // The client computes the token's expiry from created_at + expires_in: Trakt's answer must carry both
    // (it sends no token it thinks expired).
    expect(client.auth).toMatchObject({ access_token: expect.any(String), refresh_token: expect.any(String), expires: expect.any(Number) });
    expect(client.auth.expires!).toBeGreaterThan(Date.now());
    const settings = await (await client.users.settings()).json();
    expect(settings.user.username).toBe('bob');
  });

  it('searches, then scrobbles and syncs history with the ids it found, and reads last_activities', async () => {
    const found = await (await client.search.text({ type: 'movie', query: 'Spirited Away' })).json();
    const hit = found[0]!;
    expect(hit.type).toBe('movie');
    if (hit.type !== 'movie') return;
    expectSpiritedAway(hit.movie);
    // As an app does: the movie the service gave it (title, year and ids: trakt, slug, imdb, tmdb), sent back whole.
    const movie = hit.movie!;

    const start = await client.scrobble.start({ movie, progress: 5 });
    expect(start.status).toBe(201);
    expect(await start.json()).toMatchObject({ action: 'start', progress: 5 });

    const added = await client.sync.history.add({ movies: [{ ...movie, watched_at: '2024-05-01T18:00:00.000Z' }] });
    expect(added.status).toBe(201);
    expect(await added.json()).toMatchObject({ added: { movies: 1, episodes: 0 } });
    const history = await client.sync.history.get({ type: 'movies', pagination: { page: 1, limit: 10 } });
    expect(history.pagination).toEqual({ page: 1, limit: 10, pageCount: 1, itemCount: 1 });
    const [entry] = (await history.json()) as Record<string, unknown>[];
    expect(entry).toMatchObject({ action: 'watch', type: 'movie', watched_at: '2024-05-01T18:00:00.000Z' });
    expectSpiritedAway(entry!.movie);

    const activities = await (await client.sync.lastActivities()).json();
    expect(activities.movies.watched_at).toMatch(ISO);
  });
});
