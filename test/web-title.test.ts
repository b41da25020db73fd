// The title page of the web app in Chromium, at a phone's and a desk's size: a movie and a show (its
// season opened, its disclosures open) pass the page checks; its data comes in one /trpc request; every
// control changes the user's state (checked through the platform API with a token of the same user):
// watched now and at a date, rating, favourite, show status, a new list, the watchlist, a collection
// format, an episode and a whole season; a refused change (a 429) rolls back and says when to try again;
// keyboard only works; a visitor sees the sign-in gate, an unknown title a way on.
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { makeApp, makeUser } from './helpers/oauth.ts';
import { FIRST_SHOW, ok, platform, SPIRITED_AWAY } from './helpers/seed.ts';
import { issueToken } from './helpers/tokens.ts';
import { expectGoodPage, openApp, signedInApp, startWebApp, VIEWPORTS, type WebApp } from './helpers/web-app.ts';

let web: WebApp;
beforeAll(async () => {
  web = await startWebApp({ shows: 2 });
}, 120_000);
afterAll(async () => {
  await web?.stop();
});

const MOVIE = `/title/movie/${SPIRITED_AWAY}`;
const SHOW = `/title/show/${FIRST_SHOW}`;
const ALL_READ = ['profile:read', 'history:read', 'ratings:read', 'lists:read', 'collection:read'];

/** Goes to `path` inside the app (no reload: the signed-in session stays in the page's memory). */
async function go(page: Page, path: string, heading: string | RegExp): Promise<void> {
  await page.evaluate(`history.pushState(null, '', ${JSON.stringify(path)}); dispatchEvent(new PopStateEvent('popstate'))`);
  await page.getByRole('heading', { level: 1, name: heading }).waitFor();
}

/** The state a change leads to, waited for (as long as a loaded machine may take; the default second is too short). */
const eventually = <T>(read: () => T | Promise<T>) => expect.poll(read, { timeout: 30_000 });

const pressed = (page: Page, name: string) => page.getByRole('button', { name, exact: true }).getAttribute('aria-pressed');

describe.each(VIEWPORTS)('signed in at %o', (viewport) => {
  let page: Page;
  let token: string;
  let showName: string;
  let closeContext: (() => Promise<void>) | undefined;
  let session: Promise<void> | undefined;
  const api = (method: string, path: string, body?: unknown) => ok(platform(web.app, token, method, path, body));

  /** One signed-in page for the viewport's tests (signing in asserts, so it runs inside the first test). */
  const signIn = () =>
    (session ??= (async () => {
      const username = `title${viewport.width}`;
      const user = await makeUser(web.app, username);
      const client = await makeApp(web.app);
      token = await issueToken(web.app, { userId: user.id, clientId: client.client_id, scope: ALL_READ.join(' ') });
      const signedIn = await signedInApp(web, username, viewport, '/');
      page = signedIn.page;
      closeContext = () => signedIn.context.close();
      showName = ((await api('GET', SHOW)).title as { name: string }).name;
    })());
  beforeEach(() => signIn());
  afterAll(async () => {
    await closeContext?.();
  });

  it('a movie page shows the title and passes the page checks, also with its disclosures open', async () => {
    await go(page, MOVIE, 'Spirited Away');
    await eventually(() => page.getByRole('list', { name: 'Genres' }).getByText('Animation').count()).toBe(1);
    await eventually(() => page.getByText('Not watched yet.').count()).toBe(1);
    await eventually(() => page.getByRole('list', { name: 'Similar titles' }).getByRole('link').count()).toBeGreaterThan(0);
    await expectGoodPage(page);
    await page.getByText('Mark as watched at a date').click();
    await page.getByText('Add to list').click();
    await page.getByLabel('Watched at').waitFor();
    await page.getByLabel('New list name').waitFor();
    await expectGoodPage(page);
  });

  it('loads its data in one /trpc request, on a visit inside the app and on a full load', async () => {
    const header = new Set(['notifications.unreadCount', 'playback.events']);
    const data: string[] = [];
    page.on('request', (req) => {
      const url = new URL(req.url());
      if (!url.pathname.startsWith('/trpc/')) return;
      const procedures = decodeURIComponent(url.pathname.slice('/trpc/'.length)).split(',');
      if (procedures.some((p) => !header.has(p.replace(/^platform\.|^public\./, '')))) data.push(procedures.join(','));
    });
    // The first visit of a title page (its chunk and its data not loaded yet).
    const other = (await api('GET', `/title/show/${FIRST_SHOW + 1}`)).title as { name: string };
    await go(page, `/title/show/${FIRST_SHOW + 1}`, other.name);
    await page.getByRole('button', { name: 'Mark as watched', exact: true }).waitFor();
    await page.getByRole('heading', { level: 2, name: 'Seasons' }).waitFor();
    expect(data).toHaveLength(1);
    expect(data[0]!.split(',')).toContain('platform.titles.detail');

    // A full load of the app at a title page: it starts, signs in again silently and reads the page.
    data.length = 0;
    await page.goto(`${web.app.url}${SHOW}`);
    await page.getByRole('heading', { level: 1, name: showName }).waitFor();
    await page.getByRole('button', { name: 'Mark as watched', exact: true }).waitFor();
    await page.getByRole('heading', { level: 2, name: 'Seasons' }).waitFor();
    expect(data).toHaveLength(1);
    expect(data[0]!.split(',')).toContain('platform.titles.detail');
    page.removeAllListeners('request');
  });

  it('a show page passes the page checks with a season open; episodes and the season are marked', async () => {
    await go(page, SHOW, showName);
    await expectGoodPage(page);
    const season = (await api('GET', `${SHOW}/seasons/1`)) as { episodes: { episodeNumber: number; aired: boolean }[] };
    const aired = season.episodes.filter((e) => e.aired);
    expect(aired.length).toBeGreaterThan(1);

    await page.getByRole('button', { name: 'Episodes of season 1' }).click();
    await eventually(() => page.getByRole('button', { name: 'Episodes of season 1' }).getAttribute('aria-expanded')).toBe('true');
    const episodes = page.getByRole('list', { name: 'Episodes of season 1' });
    await eventually(() => episodes.getByRole('listitem').count()).toBe(season.episodes.length);
    // Only aired episodes can be marked.
    expect(await episodes.getByRole('button', { name: /^Mark S1 E\d+ as watched$/ }).count()).toBe(aired.length);
    expect(await episodes.getByText('Not aired yet').count()).toBe(season.episodes.length - aired.length);
    await expectGoodPage(page);

    await page.getByRole('button', { name: 'Mark S1 E1 as watched' }).click();
    await page.getByRole('button', { name: 'Unmark S1 E1 as watched' }).waitFor();
    await eventually(async () => ((await api('GET', `${SHOW}/seasons/1`)).episodes as { watched: boolean }[])[0]!.watched).toBe(true);
    await eventually(() => page.getByText(`1 of ${aired.length} aired watched`).count()).toBe(1);

    // Its watch can be removed once the service has given its id.
    await eventually(() => page.getByRole('button', { name: 'Unmark S1 E1 as watched' }).getAttribute('aria-disabled')).toBe(null);
    await page.getByRole('button', { name: 'Unmark S1 E1 as watched' }).click();
    await page.getByRole('button', { name: 'Mark S1 E1 as watched' }).waitFor();
    await eventually(async () => ((await api('GET', `${SHOW}/seasons/1`)).episodes as { watched: boolean }[])[0]!.watched).toBe(false);

    await page.getByRole('button', { name: 'Mark season 1 as watched' }).click();
    await eventually(() => episodes.getByRole('button', { name: /^Unmark S1 E\d+ as watched$/ }).count()).toBe(aired.length);
    await eventually(() => page.getByText(`${aired.length} of ${aired.length} aired watched`).count()).toBe(1);
    // The page shows the change before the service has made it: the service's state is waited for.
    await eventually(async () => ((await api('GET', `${SHOW}/seasons/1`)).episodes as { watched: boolean }[]).map((e) => e.watched)).toEqual(season.episodes.map((e) => e.aired));
  });

  it('marks a movie as watched now and at a date', async () => {
    await go(page, MOVIE, 'Spirited Away');
    const before = Date.now();
    await page.getByRole('button', { name: 'Mark as watched', exact: true }).click();
    await eventually(() => page.getByText(/^Watched once, last on /).count()).toBe(1);

    const details = page.locator('details', { hasText: 'Mark as watched at a date' });
    if ((await details.getAttribute('open')) === null) await page.getByText('Mark as watched at a date').click();
    await page.getByLabel('Watched at').fill('2024-05-01T20:30');
    await page.getByRole('button', { name: 'Save watch' }).click();
    await eventually(() => page.getByText(/^Watched 2 times, last on /).count()).toBe(1);

    const dated = await page.evaluate(() => new Date('2024-05-01T20:30').toISOString());
    const watches = async () => ((await api('GET', '/me/history?type=movie')).items as { movieDbId: number; watchedAt: string }[]).filter((h) => h.movieDbId === SPIRITED_AWAY);
    await eventually(async () => (await watches()).length).toBe(2);
    const mine = await watches();
    expect(mine.map((h) => h.watchedAt)).toContain(dated);
    expect(Date.parse(mine.find((h) => h.watchedAt !== dated)!.watchedAt)).toBeGreaterThanOrEqual(before - 60_000);
  });

  it('rates, favourites, sets a show status', async () => {
    await go(page, MOVIE, 'Spirited Away');
    await page.getByLabel('Rating').selectOption('8');
    await eventually(async () => ((await api('GET', MOVIE)).interaction as { rating: number | null }).rating).toBe(8);
    await page.getByLabel('Rating').selectOption('');
    await eventually(async () => ((await api('GET', MOVIE)).interaction as { rating: number | null }).rating).toBe(null);
    expect(await page.getByLabel('Rating').locator('option').count()).toBe(11);

    await eventually(() => pressed(page, 'Favourite')).toBe('false');
    await page.getByRole('button', { name: 'Favourite', exact: true }).click();
    await eventually(() => pressed(page, 'Favourite')).toBe('true');
    await eventually(async () => ((await api('GET', MOVIE)).interaction as { isFavourite: boolean }).isFavourite).toBe(true);

    await go(page, SHOW, showName);
    await page.getByLabel('Show status').selectOption('paused');
    await eventually(async () => ((await api('GET', SHOW)).interaction as { showStatus: string | null }).showStatus).toBe('paused');
    await page.getByLabel('Show status').selectOption('');
    await eventually(async () => ((await api('GET', SHOW)).interaction as { showStatus: string | null }).showStatus).toBe(null);
  });

  it('adds to a new list, to the watchlist and to the collection, and takes them off again', async () => {
    await go(page, MOVIE, 'Spirited Away');
    const details = page.locator('details', { hasText: 'Add to list' });
    if ((await details.getAttribute('open')) === null) await page.getByText('Add to list').click();
    await page.getByLabel('New list name').fill(`Ghibli ${viewport.width}`);
    await page.getByRole('button', { name: 'Create list and add' }).click();
    await eventually(() => pressed(page, `Ghibli ${viewport.width}`)).toBe('true');
    const findList = async () => ((await api('GET', '/me/lists')).items as { id: number; name: string }[]).find((l) => l.name === `Ghibli ${viewport.width}`);
    await eventually(findList).toBeDefined();
    const list = (await findList())!;
    await eventually(async () => ((await api('GET', `/lists/${list.id}`)).items as { movieDbId: number; type: string }[]).map((i) => [i.type, i.movieDbId]))
      .toEqual([['movie', SPIRITED_AWAY]]);

    await page.getByRole('button', { name: 'Add to watchlist' }).click();
    await eventually(() => pressed(page, 'Add to watchlist')).toBe('true');
    await eventually(async () => ((await api('GET', '/me/watchlist')).items as { movieDbId: number }[]).map((i) => i.movieDbId)).toEqual([SPIRITED_AWAY]);
    await page.getByRole('button', { name: 'Add to watchlist' }).click();
    await eventually(() => pressed(page, 'Add to watchlist')).toBe('false');
    await eventually(async () => ((await api('GET', '/me/watchlist')).items as unknown[]).length).toBe(0);

    await page.getByRole('button', { name: 'In collection: Blu-ray', exact: true }).click();
    await eventually(() => pressed(page, 'In collection: Blu-ray')).toBe('true');
    await eventually(async () => ((await api('GET', '/me/collection')).items as { movieDbId: number; format: string; season: number }[]).map((i) => [i.movieDbId, i.format, i.season]))
      .toEqual([[SPIRITED_AWAY, 'bluray', 0]]);
    // The item's id comes with the service's answer; then it can be taken off.
    await eventually(() => page.getByRole('button', { name: 'In collection: Blu-ray', exact: true }).getAttribute('aria-disabled')).toBe(null);
    await page.getByRole('button', { name: 'In collection: Blu-ray', exact: true }).click();
    await eventually(() => pressed(page, 'In collection: Blu-ray')).toBe('false');
    await eventually(async () => ((await api('GET', '/me/collection')).items as unknown[]).length).toBe(0);
  });

  it('a refused change rolls back and says when to try again', async () => {
    await go(page, SHOW, showName);
    // The service's answer waits until the page has shown the change, then refuses it.
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const refused: string[] = [];
    await page.route('**/trpc/platform.ratings.favourite**', async (route) => {
      refused.push(route.request().method());
      await held;
      await route.fulfill({
        status: 429,
        contentType: 'application/json',
        headers: { 'retry-after': '7' },
        body: JSON.stringify([
          { error: { message: 'Too many requests', code: -32029, data: { code: 'TOO_MANY_REQUESTS', httpStatus: 429, retry_after: 7, error: 'rate_limited', request_id: null } } },
        ]),
      });
    });
    try {
      await eventually(() => pressed(page, 'Favourite')).toBe('false');
      await page.getByRole('button', { name: 'Favourite', exact: true }).click();
      await eventually(() => pressed(page, 'Favourite')).toBe('true');
      await eventually(() => refused).toEqual(['POST']);
      release();
      await page.getByText('Too many requests: try again in 7 s.').waitFor();
      await eventually(() => pressed(page, 'Favourite')).toBe('false');
      expect(((await api('GET', SHOW)).interaction as { isFavourite: boolean }).isFavourite).toBe(false);
    } finally {
      release();
      await page.unroute('**/trpc/platform.ratings.favourite**');
    }
  });

  it('works by keyboard alone', async () => {
    await go(page, SHOW, showName);
    const tabTo = async (name: string) => {
      for (let i = 0; i < 80; i++) {
        await page.keyboard.press('Tab');
        const focused = page.locator(':focus');
        const text = (await focused.count()) ? ((await focused.getAttribute('aria-label')) ?? (await focused.innerText())) : '';
        if (text.replace(/\s+/g, ' ').includes(name)) return;
      }
      throw new Error(`never reached ${name} by Tab`);
    };
    await tabTo('Add to watchlist');
    await page.keyboard.press('Enter');
    await eventually(() => pressed(page, 'Add to watchlist')).toBe('true');
    await page.keyboard.press('Space');
    await eventually(() => pressed(page, 'Add to watchlist')).toBe('false');
    await tabTo('Episodes');
    await page.keyboard.press('Enter');
    await eventually(() => page.getByRole('button', { name: 'Episodes of season 1' }).getAttribute('aria-expanded')).toBe('true');
    await eventually(() => page.evaluate<string>('getComputedStyle(document.activeElement).outlineStyle')).toBe('solid');
  });

  it('an unknown title says so and offers a way on', async () => {
    await go(page, '/title/movie/999999', 'Title not found');
    await page.getByRole('link', { name: 'Go home' }).waitFor();
    await expectGoodPage(page);
    await go(page, '/title/film/1', 'Title not found');
  });
});

describe.each(VIEWPORTS)('signed out at %o', (viewport) => {
  it('the page asks to sign in', async () => {
    const { context, page } = await openApp(web, viewport, MOVIE);
    try {
      await page.getByText('Sign in to see this title with your watches, rating and lists.').waitFor();
      await expectGoodPage(page);
    } finally {
      await context.close();
    }
  });
});
