// The web app's Stats page in Chromium at a phone's and a desk's size: after watches and a rating logged
// through the API, the figures say what was logged (watch time, movies, shows, episodes, ratings), the
// charts carry it in their text alternatives, trophies show their progress by name; axe passes with the
// charts. The year in review shows this year, then a previous year picked from its list and a year with
// nothing, axe passing in the light and the dark theme. Also a user with nothing yet and a visitor.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIRST_SHOW, member, ok, platform, SPIRITED_AWAY } from './helpers/seed.ts';
import { bulk } from './helpers/sync-client.ts';
import { expectGoodPage, openApp, signedInApp, startWebApp, VIEWPORTS, type WebApp } from './helpers/web-app.ts';

/** Polls wait for the page, which a loaded machine can make slow (the default is 1 s). */
const WAIT = { timeout: 30_000 };

const SCOPES = ['profile:read', 'history:read', 'history:write', 'ratings:read', 'ratings:write', 'trophies:read'];

let web: WebApp;
beforeAll(async () => {
  web = await startWebApp({ shows: 1 });
});
afterAll(async () => {
  await web?.stop();
});

/** As the page writes a duration. */
const duration = (minutes: number) => {
  const h = Math.floor(minutes / 60);
  const m = minutes % 60;
  return h === 0 ? `${m} min` : m === 0 ? `${h} h` : `${h} h ${m} min`;
};

describe.each(VIEWPORTS)('Stats at %o', (viewport) => {
  const tag = viewport.width;

  it('shows figures that match what was logged, charts with text alternatives, and trophies with progress', async () => {
    const m = await member(web.app, `counter_${tag}`, SCOPES);
    const at = new Date(Date.now() - 3_600_000).toISOString();
    const logged = [
      await ok(platform(web.app, m.token, 'POST', '/watch-history', { type: 'movie', movieDbId: SPIRITED_AWAY, watchedAt: at })),
      await ok(platform(web.app, m.token, 'POST', '/watch-history', { type: 'show', movieDbId: FIRST_SHOW, season: 1, episode: 1, watchedAt: at })),
      await ok(platform(web.app, m.token, 'POST', '/watch-history', { type: 'show', movieDbId: FIRST_SHOW, season: 1, episode: 2, watchedAt: at })),
    ];
    const minutes = logged.flatMap((l) => l.items as { runtimeMinutes: number }[]).reduce((sum, i) => sum + i.runtimeMinutes, 0);
    await ok(platform(web.app, m.token, 'POST', '/ratings', { type: 'movie', movieDbId: SPIRITED_AWAY, rating: 9 }));

    const { context, page } = await signedInApp(web, `counter_${tag}`, viewport, '/stats');
    try {
      const all = page.getByRole('region', { name: 'All time' });
      const figure = (label: string) => all.locator('dl > div').filter({ has: page.locator('dt', { hasText: new RegExp(`^${label}$`) }) }).locator('dd');
      await expect.poll(() => figure('Watch time').textContent(), WAIT).toBe(duration(minutes));
      expect(await figure('Watches').textContent()).toBe('3');
      expect(await figure('Movies').textContent()).toBe('1');
      expect(await figure('Shows').textContent()).toBe('1');
      expect(await figure('Episodes').textContent()).toBe('2');
      expect(await figure('Ratings').textContent()).toBe('1');
      expect(await figure('Current streak').textContent()).toBe('1 day');
      expect(await figure('Longest streak').textContent()).toBe('1 day');

      // The charts' text alternatives carry the figures: this month's minutes and this weekday's.
      const months = page.getByRole('img', { name: /^Minutes watched per month:/ });
      const monthName = new Date(at).toLocaleDateString('en-US', { month: 'long', year: 'numeric', timeZone: 'UTC' });
      expect(await months.getAttribute('aria-label')).toContain(`${monthName} ${duration(minutes)}`);
      const weekdays = page.getByRole('img', { name: /^Minutes watched per weekday:/ });
      const weekday = new Date(at).toLocaleDateString('en-US', { weekday: 'long', timeZone: 'UTC' });
      expect(await weekdays.getAttribute('aria-label')).toContain(`${weekday} ${duration(minutes)}`);
      const genres = page.getByRole('figure', { name: 'Genres watched most' });
      expect(await genres.getByRole('listitem').count()).toBeGreaterThan(0);

      await expect.poll(() => page.getByRole('progressbar', { name: 'First watch: 1 of 1' }).count(), WAIT).toBe(1);
      expect(await page.getByRole('progressbar', { name: 'Movie night: 1 of 10' }).count()).toBe(1);
      expect(await page.getByRole('progressbar', { name: 'Binge starter: 2 of 100' }).count()).toBe(1);
      await expectGoodPage(page);

      // A chart's table, opened from the keyboard.
      const summary = page.getByText('Show as a table').first();
      await summary.focus();
      await page.keyboard.press('Enter');
      await expect.poll(() => page.getByRole('table', { name: 'Minutes watched per month' }).getByRole('row', { name: new RegExp(`^${monthName}`) }).textContent(), WAIT).toContain(duration(minutes));
      await expectGoodPage(page);
    } finally {
      await context.close();
    }
  });

  it('reviews this year, then a previous year picked from the list and a year with nothing, in both themes', async () => {
    const m = await member(web.app, `reviewer_${tag}`, SCOPES);
    const year = new Date().getUTCFullYear();
    const last = year - 1;
    // Last year: a movie and two episodes on three days in a row, and a rating; this year: one watch.
    await ok(bulk(web.app, m.token, 'history', [
      { movie_db_id: SPIRITED_AWAY, watched_at: `${last}-07-14T20:00:00Z` },
      { movie_db_id: FIRST_SHOW, season: 1, episode: 1, watched_at: `${last}-07-15T20:00:00Z` },
      { movie_db_id: FIRST_SHOW, season: 1, episode: 2, watched_at: `${last}-07-16T20:00:00Z` },
    ]));
    await ok(bulk(web.app, m.token, 'ratings', [{ movie_db_id: SPIRITED_AWAY, rating: 8, rated_at: `${last}-07-14T22:00:00Z` }]));
    const now = new Date(Math.max(Date.UTC(year, 0, 1), Date.now() - 60_000)).toISOString();
    await ok(platform(web.app, m.token, 'POST', '/watch-history', { type: 'movie', movieDbId: SPIRITED_AWAY, watchedAt: now }));

    for (const colorScheme of ['light', 'dark'] as const) {
      const { context, page } = await signedInApp(web, `reviewer_${tag}`, viewport, '/stats', { colorScheme });
      try {
        const review = page.getByRole('region', { name: 'Year in review' });
        const figure = (y: number, label: string) => review.locator(`dl[aria-label="${y} in figures"] > div`).filter({ has: page.locator('dt', { hasText: new RegExp(`^${label}$`) }) }).locator('dd');
        const picker = review.getByLabel('Year');
        expect(await picker.inputValue()).toBe(String(year));
        await expect.poll(() => figure(year, 'Watches').textContent(), WAIT).toBe('1');
        expect(await figure(year, 'Movies').textContent()).toBe('1');
        await expectGoodPage(page);

        await picker.selectOption(String(last));
        await expect.poll(() => figure(last, 'Watches').textContent(), WAIT).toBe('3');
        expect(await figure(last, 'Movies').textContent()).toBe('1');
        expect(await figure(last, 'Episodes').textContent()).toBe('2');
        expect(await figure(last, 'Days watched').textContent()).toBe('3');
        expect(await figure(last, 'Ratings given').textContent()).toBe('1');
        const highlight = (label: string) => review.locator(`dl[aria-label="${last} highlights"] > div`).filter({ has: page.locator('dt', { hasText: new RegExp(`^${label}$`) }) }).locator('dd');
        expect(await highlight('Busiest month').textContent()).toBe(`July ${last} 3 watches`);
        expect(await highlight('Longest streak').textContent()).toBe(`3 days July 14, ${last} to July 16, ${last}`);
        expect(await highlight('First watch').getByRole('link').textContent()).toBe('Spirited Away');
        expect(await highlight('Last watch').getByRole('link').textContent()).toMatch(/ S1 E2$/);
        const top = review.getByRole('list', { name: `Most watched in ${last}` }).getByRole('listitem');
        expect(await top.count()).toBe(2);
        expect(await review.getByRole('figure', { name: `Top genres of ${last}` }).getByRole('listitem').count()).toBeGreaterThan(0);
        await expectGoodPage(page);

        // A year with nothing in it says so.
        await picker.selectOption(String(year - 5));
        await expect.poll(() => review.getByText(`Nothing watched in ${year - 5}.`).count(), WAIT).toBe(1);
        await expectGoodPage(page);
      } finally {
        await context.close();
      }
    }
  });

  it('says how to start for a user with nothing yet; signed out, how to sign in', async () => {
    await member(web.app, `blank_${tag}`, SCOPES);
    const { context, page } = await signedInApp(web, `blank_${tag}`, viewport, '/stats');
    try {
      await expect.poll(() => page.getByText('Nothing counted yet.').count(), WAIT).toBe(1);
      expect(await page.getByRole('progressbar', { name: 'First watch: 0 of 1' }).count()).toBe(1);
      await expectGoodPage(page);
    } finally {
      await context.close();
    }
    const visitor = await openApp(web, viewport, '/stats');
    try {
      await expect.poll(() => visitor.page.getByText('Sign in to see your stats.').count(), WAIT).toBe(1);
      await expectGoodPage(visitor.page);
    } finally {
      await visitor.context.close();
    }
  });
});
