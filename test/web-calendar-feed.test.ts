// The web app's "Calendar feed" part of Settings in Chromium at a phone's and a desk's size: creating
// the feed shows its address once (copied by the Copy button, opened as webcal://), which serves the
// followed show's episodes; after a reload only its dates are shown; a new address (asked first)
// replaces the old one, which then answers 404; deleting (asked first, cancellable) ends the feed.
// axe-core on every state.
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dayFromToday, fetchFeed, parseFeed, setAirDates } from './helpers/calendar-feed.ts';
import { FIRST_SHOW, member, ok, platform } from './helpers/seed.ts';
import { expectGoodPage, signedInApp, startWebApp, VIEWPORTS, type WebApp } from './helpers/web-app.ts';

/** Polls wait for the page, which a loaded machine can make slow (the default is 1 s). */
const WAIT = { timeout: 30_000 };

let web: WebApp;
beforeAll(async () => {
  web = await startWebApp({ shows: 1 });
  await setAirDates(web.app, FIRST_SHOW, { 1: dayFromToday(2) });
});
afterAll(async () => {
  await web?.stop();
});

const section = (page: Page) => page.getByRole('region', { name: 'Calendar feed' });
const address = (page: Page) => section(page).getByLabel('Feed address');

describe.each(VIEWPORTS)('Calendar feed at %o', (viewport) => {
  it('makes the address once, copies it, replaces it and deletes the feed', async () => {
    const username = `subscriber_${viewport.width}`;
    const m = await member(web.app, username, ['profile:read', 'ratings:write']);
    await ok(platform(web.app, m.token, 'PUT', `/show-status/show/${FIRST_SHOW}`, { status: 'watching' }));
    const { context, page } = await signedInApp(web, username, viewport, '/settings');
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: web.app.url });
    try {
      const create = section(page).getByRole('button', { name: 'Create a calendar feed' });
      await expect.poll(() => create.count(), WAIT).toBe(1);
      await expectGoodPage(page);

      // Made: the address, shown once, serves the followed show's episode.
      await create.click();
      await expect.poll(() => address(page).count(), WAIT).toBe(1);
      const url = await address(page).inputValue();
      expect(url).toMatch(new RegExp(`^${web.app.url.replaceAll('.', '\\.')}/api/platform/v1/me/calendar\\.ics\\?token=cal_[A-Za-z0-9_-]{43}$`));
      expect(await section(page).getByRole('link', { name: 'Open in my calendar app' }).getAttribute('href')).toBe(url.replace(/^http:/, 'webcal:'));
      const feed = await fetchFeed(url);
      expect(feed.status).toBe(200);
      expect(parseFeed(feed.text).events.map((e) => e.start)).toEqual([dayFromToday(2)]);
      await expectGoodPage(page);

      await section(page).getByRole('button', { name: 'Copy' }).click();
      await expect.poll(() => section(page).getByText('Address copied.').count(), WAIT).toBe(1);
      expect(await page.evaluate('navigator.clipboard.readText()')).toBe(url);

      // After a reload: the dates, never the address.
      await page.reload();
      await expect.poll(() => section(page).getByText('a calendar app last fetched it on', { exact: false }).count(), WAIT).toBe(1);
      expect(await address(page).count()).toBe(0);
      await expectGoodPage(page);

      // A new address, asked first: the old one stops working.
      await section(page).getByRole('button', { name: 'New address…' }).click();
      const confirm = section(page).getByRole('group');
      await expect.poll(() => confirm.getByText('The current one stops working at once', { exact: false }).count(), WAIT).toBe(1);
      await expectGoodPage(page);
      await confirm.getByRole('button', { name: 'Make a new address' }).click();
      await expect.poll(async () => ((await address(page).count()) ? address(page).inputValue() : ''), WAIT).toMatch(/token=cal_/);
      const renewed = await address(page).inputValue();
      expect(renewed).not.toBe(url);
      expect((await fetchFeed(url)).status).toBe(404);
      expect((await fetchFeed(renewed)).status).toBe(200);

      // Deleting, asked first; Cancel leaves the feed.
      await section(page).getByRole('button', { name: 'Delete feed…' }).click();
      await section(page).getByRole('group').getByRole('button', { name: 'Cancel' }).click();
      expect((await fetchFeed(renewed)).status).toBe(200);
      await section(page).getByRole('button', { name: 'Delete feed…' }).click();
      await section(page).getByRole('group').getByRole('button', { name: 'Delete the feed' }).click();
      await expect.poll(() => section(page).getByText('Calendar feed deleted', { exact: false }).count(), WAIT).toBe(1);
      expect(await section(page).getByRole('button', { name: 'Create a calendar feed' }).count()).toBe(1);
      expect((await fetchFeed(renewed)).status).toBe(404);
      await expectGoodPage(page);
    } finally {
      await context.close();
    }
  });
});
