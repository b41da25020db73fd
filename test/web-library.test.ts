// The Watchlist and Collection pages of the web app in Chromium, at a phone's and a desk's size, every
// state through the page checks (no sideways scroll, 44 px targets, axe): empty, with titles (seeded
// through the platform API as the same user), filtered by type (a filter with nothing in it too), a
// refused remove rolled back with its message, a remove that holds (checked through the API); and the
// sign-in gate for a visitor.
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { FIRST_SHOW, SPIRITED_AWAY } from './helpers/seed.ts';
import { apiUser, focused, go, RATE_LIMITED, refusedWhile, type ApiUser } from './helpers/web-library.ts';
import { screenshotPath } from './helpers/browser.ts';
import { expectGoodPage, openApp, signedInApp, startWebApp, VIEWPORTS, type WebApp } from './helpers/web-app.ts';

let web: WebApp;
beforeAll(async () => {
  web = await startWebApp({ shows: 1 });
}, 120_000);
afterAll(async () => {
  await web?.stop();
});

/** Polls wait for the page and the service, which a loaded machine can make slow (the default is 1 s). */
const WAIT = { timeout: 30_000 };

const SCOPES = ['profile:read', 'lists:read', 'lists:write', 'collection:read', 'collection:write'];
const TOY_STORY = 862;

/** The names of the titles the grid `name` shows, in order. */
const names = (page: Page, grid: string) => page.getByRole('list', { name: grid, exact: true }).locator('.title-card-name').allTextContents();
const filter = async (page: Page, label: string) => {
  await page.getByRole('group', { name: 'Show' }).getByRole('button', { name: label, exact: true }).click();
  await expect.poll(() => page.getByRole('button', { name: label, exact: true }).getAttribute('aria-pressed'), WAIT).toBe('true');
};

describe.each(VIEWPORTS)('at %o', (viewport) => {
  let user: ApiUser;
  let page: Page;
  let close: (() => Promise<void>) | undefined;
  let session: Promise<void> | undefined;
  let showName = '';

  const signIn = () =>
    (session ??= (async () => {
      user = await apiUser(web.app, `lib${viewport.width}`, SCOPES);
      const signedIn = await signedInApp(web, user.username, viewport, '/');
      page = signedIn.page;
      close = () => signedIn.context.close();
      showName = ((await user.api('GET', `/title/show/${FIRST_SHOW}`)).title as { name: string }).name;
    })());
  beforeEach(() => signIn());
  afterAll(async () => {
    await close?.();
  });

  it('watchlist: empty, with titles, filtered, a refused remove rolled back, a remove', async () => {
    await go(page, '/watchlist', 'Watchlist');
    await page.getByText('Your watchlist is empty.').waitFor();
    await expectGoodPage(page);

    const watchlist = (await user.api('GET', '/me/watchlist')) as { id: number };
    await user.api('POST', `/lists/${watchlist.id}/items`, {
      items: [
        { type: 'movie', movieDbId: SPIRITED_AWAY },
        { type: 'show', movieDbId: FIRST_SHOW },
        { type: 'movie', movieDbId: TOY_STORY },
      ],
    });
    await go(page, '/', 'Home');
    await go(page, '/watchlist', 'Watchlist');
    await expect.poll(() => names(page, 'Watchlist'), WAIT).toEqual(['Spirited Away', showName, 'Toy Story']);
    await page.getByText('3 titles').waitFor();
    expect(await page.getByRole('link', { name: 'Toy Story' }).getAttribute('href')).toBe(`/title/movie/${TOY_STORY}`);
    await expectGoodPage(page);
    await page.screenshot({ path: screenshotPath(`web-watchlist-${viewport.width}`), fullPage: true });

    await filter(page, 'Movies');
    await expect.poll(() => names(page, 'Watchlist'), WAIT).toEqual(['Spirited Away', 'Toy Story']);
    expect(new URL(page.url()).search).toBe('?type=movie');
    await filter(page, 'Shows');
    await expect.poll(() => names(page, 'Watchlist'), WAIT).toEqual([showName]);
    await filter(page, 'Anime');
    await page.getByText('No anime on your watchlist.').waitFor();
    await expectGoodPage(page);
    await page.getByRole('button', { name: 'Show all' }).click();
    await expect.poll(() => names(page, 'Watchlist'), WAIT).toEqual(['Spirited Away', showName, 'Toy Story']);

    const refused = await refusedWhile(page, 'platform.lists.removeItem', async () => {
      await page.getByRole('button', { name: 'Remove Toy Story from watchlist' }).click();
      await page.getByText(RATE_LIMITED).waitFor();
      await expect.poll(() => names(page, 'Watchlist'), WAIT).toEqual(['Spirited Away', showName, 'Toy Story']);
    });
    expect(refused).toEqual(['POST']);

    await page.getByRole('button', { name: `Remove ${showName} from watchlist` }).click();
    await expect.poll(() => names(page, 'Watchlist'), WAIT).toEqual(['Spirited Away', 'Toy Story']);
    await expect.poll(() => focused(page), WAIT).toBe('Remove Toy Story from watchlist');
    await expect.poll(async () => ((await user.api('GET', '/me/watchlist')) as { items: { title: string }[] }).items.map((i) => i.title), WAIT).toEqual(['Spirited Away', 'Toy Story']);
    await expectGoodPage(page);
  });

  it('collection: empty, each title with its formats, filtered by the service, a refused remove rolled back, a remove of every copy', async () => {
    await go(page, '/collection', 'Collection');
    await page.getByText('Your collection is empty.').waitFor();
    await expectGoodPage(page);

    for (const copy of [
      { type: 'movie', movieDbId: TOY_STORY, format: 'bluray' },
      { type: 'movie', movieDbId: TOY_STORY, format: 'dvd' },
      { type: 'show', movieDbId: FIRST_SHOW, format: 'digital', season: 1 },
      { type: 'movie', movieDbId: SPIRITED_AWAY, format: 'uhd_bluray' },
    ]) {
      await user.api('POST', '/me/collection', copy);
    }
    await go(page, '/', 'Home');
    await go(page, '/collection', 'Collection');
    await expect.poll(() => names(page, 'Collection'), WAIT).toEqual(['Spirited Away', showName, 'Toy Story']);
    expect(await page.getByRole('list', { name: 'Formats of Toy Story' }).getByRole('listitem').allTextContents()).toEqual(['DVD', 'Blu-ray']);
    expect(await page.getByRole('list', { name: `Formats of ${showName}` }).getByRole('listitem').allTextContents()).toEqual(['Digital (season 1)']);
    expect(await page.getByRole('list', { name: 'Formats of Spirited Away' }).getByRole('listitem').allTextContents()).toEqual(['4K Blu-ray']);
    await expectGoodPage(page);
    await page.screenshot({ path: screenshotPath(`web-collection-${viewport.width}`), fullPage: true });

    await filter(page, 'Shows');
    await expect.poll(() => names(page, 'Collection'), WAIT).toEqual([showName]);
    await filter(page, 'Anime');
    await page.getByText('No anime in your collection.').waitFor();
    await expectGoodPage(page);
    await filter(page, 'Movies');
    await expect.poll(() => names(page, 'Collection'), WAIT).toEqual(['Spirited Away', 'Toy Story']);
    await filter(page, 'All');
    await expect.poll(() => names(page, 'Collection'), WAIT).toEqual(['Spirited Away', showName, 'Toy Story']);

    const refused = await refusedWhile(page, 'platform.collection.remove', async () => {
      await page.getByRole('button', { name: 'Remove Spirited Away from collection' }).click();
      await page.getByText(RATE_LIMITED).waitFor();
      await expect.poll(() => names(page, 'Collection'), WAIT).toEqual(['Spirited Away', showName, 'Toy Story']);
    });
    expect(refused).toEqual(['POST']);

    await page.getByRole('button', { name: 'Remove Toy Story from collection' }).focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => names(page, 'Collection'), WAIT).toEqual(['Spirited Away', showName]);
    await expect.poll(() => focused(page), WAIT).toBe(`Remove ${showName} from collection`);
    const left = async () => ((await user.api('GET', '/me/collection')) as { items: { movieDbId: number; format: string }[] }).items.map((c) => [c.movieDbId, c.format]);
    await expect.poll(left, WAIT).toEqual([
      [SPIRITED_AWAY, 'uhd_bluray'],
      [FIRST_SHOW, 'digital'],
    ]);
    await expectGoodPage(page);
  });

  it('asks a visitor to sign in', async () => {
    const { context, page: visitor } = await openApp(web, viewport, '/watchlist');
    try {
      await visitor.getByText('Sign in to see your watchlist.').waitFor();
      await expectGoodPage(visitor);
      await go(visitor, '/collection', 'Collection');
      await visitor.getByText('Sign in to see your collection.').waitFor();
      await expectGoodPage(visitor);
    } finally {
      await context.close();
    }
  });
});
