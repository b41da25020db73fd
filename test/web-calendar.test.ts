// The web app's Calendar page in Chromium at a phone's and a desk's size: a show the user follows (status
// Watching, set through the API) with episodes airing in the coming days (the synthetic catalog seeded
// with an epoch that puts one there), grouped by day with links to the show; "Previous" and "Next" move
// the range and keep it in the URL, which a reload keeps; the empty and signed-out states.
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { syntheticShows } from '../src/core/catalog/import/synthetic-tv.ts';
import { FIRST_SHOW, member, ok, platform, seedCatalog } from './helpers/seed.ts';
import { expectGoodPage, openApp, signedInApp, startWebApp, VIEWPORTS, type WebApp } from './helpers/web-app.ts';

/** Polls wait for the page, which a loaded machine can make slow (the default is 1 s). */
const WAIT = { timeout: 30_000 };

const SHOWS = 3;
const DAY_MS = 86_400_000;
const utcDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const localDay = (d: Date) => `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
const addDays = (day: string, n: number) => utcDay(Date.parse(`${day}T00:00:00Z`) + n * DAY_MS);

/**
 * The synthetic shows' air dates follow from their epoch: the nearest epoch to today that makes one of
 * the first SHOWS shows air an episode one to five days from now (inside this week's range in any
 * time zone).
 */
function epochWithEpisodesSoon(): { epoch: Date; show: number } {
  const today = Math.floor(Date.now() / DAY_MS) * DAY_MS;
  const [from, to] = [utcDay(today + DAY_MS), utcDay(today + 5 * DAY_MS)];
  for (let d = 0; d < 100_000; d++) {
    for (const epoch of [new Date(today - d * DAY_MS), new Date(today + d * DAY_MS)]) {
      const i = syntheticShows({ count: SHOWS, epoch }).findIndex((s) => s.seasons?.some((se) => se.episodes?.some((e) => e.airDate && e.airDate >= from && e.airDate <= to)));
      if (i >= 0) return { epoch, show: FIRST_SHOW + i };
    }
  }
  throw new Error('no epoch puts an episode in the coming days');
}

let web: WebApp;
let followed: number;

beforeAll(async () => {
  web = await startWebApp({ shows: SHOWS });
  const { epoch, show } = epochWithEpisodesSoon();
  await seedCatalog(web.app, { shows: SHOWS, epoch });
  followed = show;
});
afterAll(async () => {
  await web?.stop();
});

type Item = { show: { movieDbId: number; name: string }; season: number; episode: number; airDate: string };

const entries = (page: Page) => page.locator('.calendar-list > li');
const span = (page: Page) => page.locator('.calendar-span').textContent();

describe.each(VIEWPORTS)('Calendar at %o', (viewport) => {
  const tag = viewport.width;

  it('shows the coming episodes of a followed show by day, and moves week by week in the URL', async () => {
    const m = await member(web.app, `follower_${tag}`, ['profile:read', 'ratings:write']);
    await ok(platform(web.app, m.token, 'PUT', `/show-status/show/${followed}`, { status: 'watching' }));
    const { context, page } = await signedInApp(web, `follower_${tag}`, viewport, '/calendar');
    try {
      const today = localDay(new Date());
      const week = (await ok(platform(web.app, m.token, 'GET', `/calendar?startDate=${today}&days=7`))).items as Item[];
      expect(week.length).toBeGreaterThan(0);
      await expect.poll(() => entries(page).count(), WAIT).toBe(week.length);
      const first = entries(page).first();
      expect(await first.getByRole('link').textContent()).toBe(week[0]!.show.name);
      expect(await first.getByRole('link').getAttribute('href')).toBe(`/title/show/${week[0]!.show.movieDbId}`);
      expect(await first.textContent()).toContain(`S${week[0]!.season} E${week[0]!.episode}`);
      const days = await page.getByRole('main').getByRole('heading', { level: 2 }).locator('time').evaluateAll((els) => els.map((e) => e.getAttribute('datetime')));
      expect(days).toEqual([...new Set(week.map((i) => i.airDate))]);
      await expectGoodPage(page);

      // "Next" from the keyboard: the next week, in the URL.
      const thisWeek = await span(page);
      await page.getByRole('link', { name: 'Next' }).focus();
      await page.keyboard.press('Enter');
      await page.waitForURL((u) => u.pathname === '/calendar' && u.searchParams.get('start') === addDays(today, 7));
      await expect.poll(() => span(page), WAIT).not.toBe(thisWeek);
      const next = (await ok(platform(web.app, m.token, 'GET', `/calendar?startDate=${addDays(today, 7)}&days=7`))).items as Item[];
      await expect.poll(() => entries(page).count(), WAIT).toBe(next.length);
      await expectGoodPage(page);

      // "Previous" twice: the week before this one; a reload of that URL shows the same week.
      await page.getByRole('link', { name: 'Previous' }).click();
      await page.waitForURL((u) => u.searchParams.get('start') === today);
      await expect.poll(() => span(page), WAIT).toBe(thisWeek);
      await page.getByRole('link', { name: 'Previous' }).click();
      await page.waitForURL((u) => u.searchParams.get('start') === addDays(today, -7));
      const lastWeek = await span(page);
      await page.reload();
      await expect.poll(() => span(page), WAIT).toBe(lastWeek);
      expect(new URL(page.url()).searchParams.get('start')).toBe(addDays(today, -7));
    } finally {
      await context.close();
    }
  });

  it('tells a user who follows nothing how to follow a show; signed out, how to sign in', async () => {
    await member(web.app, `loner_${tag}`, ['profile:read']);
    const { context, page } = await signedInApp(web, `loner_${tag}`, viewport, '/calendar');
    try {
      await expect.poll(() => page.getByText('set its status to Watching', { exact: false }).count(), WAIT).toBe(1);
      await expectGoodPage(page);
    } finally {
      await context.close();
    }
    const visitor = await openApp(web, viewport, '/calendar');
    try {
      await expect.poll(() => visitor.page.getByText('Sign in to see the episodes of the shows you follow.').count(), WAIT).toBe(1);
      await expectGoodPage(visitor.page);
    } finally {
      await visitor.context.close();
    }
  });
});
