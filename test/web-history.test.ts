// The web app's History page in Chromium at a phone's and a desk's size: watches logged through the API
// for the signed-in user, grouped by day newest first; the next page by "Load more" from the keyboard and
// by scrolling to the end; the type and date filters; "Edit date" and "Delete" (with its confirm step),
// optimistic, and a refused edit put back with a message; the empty, signed-out and failed states.
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIRST_SHOW, member, ok, platform, SPIRITED_AWAY } from './helpers/seed.ts';
import { sql } from './helpers/title-fixtures.ts';
import { expectGoodPage, openApp, signedInApp, startWebApp, VIEWPORTS, type WebApp } from './helpers/web-app.ts';

/** Polls wait for the page, which a loaded machine can make slow (the default is 1 s). */
const WAIT = { timeout: 30_000 };

const SCOPES = ['profile:read', 'history:read', 'history:write'];
const DAY_MS = 86_400_000;
/** Noon UTC `n` days ago: the same local day in any time zone within ±11 h. */
const noonDaysAgo = (n: number, plusMinutes = 0) => new Date(Math.floor(Date.now() / DAY_MS) * DAY_MS - n * DAY_MS + 12 * 3_600_000 + plusMinutes * 60_000);
/** Rewatches of Spirited Away, two hours apart, before the other three entries: 31 in all, two pages of 25. */
const REWATCHES = 28;

let web: WebApp;
let movie: { movie_db_id: number; name: string };

beforeAll(async () => {
  web = await startWebApp({ shows: 1 });
  [movie] = (await sql<{ movie_db_id: number; name: string }>(web.app, `select movie_db_id, name from title where type = 'movie' and not is_anime and runtime_minutes is not null order by movie_db_id limit 1`)) as [
    { movie_db_id: number; name: string },
  ];
});
afterAll(async () => {
  await web?.stop();
});

type Entry = { id: number; name: string; watchedAt: string; season: number | null; episode: number | null };

/** A user with a movie yesterday, two episodes the day before, and REWATCHES rewatches of Spirited Away before that. */
async function historian(username: string) {
  const m = await member(web.app, username, SCOPES);
  const log = (body: Record<string, unknown>) => ok(platform(web.app, m.token, 'POST', '/watch-history', body));
  await log({ type: 'movie', movieDbId: movie.movie_db_id, watchedAt: noonDaysAgo(1).toISOString() });
  await log({ type: 'show', movieDbId: FIRST_SHOW, season: 1, episode: 1, watchedAt: noonDaysAgo(2).toISOString() });
  await log({ type: 'show', movieDbId: FIRST_SHOW, season: 1, episode: 2, watchedAt: noonDaysAgo(2, 30).toISOString() });
  for (let i = 0; i < REWATCHES; i++) await log({ type: 'movie', movieDbId: SPIRITED_AWAY, watchedAt: new Date(noonDaysAgo(3).getTime() - i * 2 * 3_600_000).toISOString() });
  const entries = async () => (await ok(platform(web.app, m.token, 'GET', '/me/history?limit=100'))).items as Entry[];
  return { ...m, entries };
}

const entryRows = (page: Page) => page.locator('.history-list > li');
const dayHeadings = (page: Page) => page.locator('#history-days').getByRole('heading', { level: 2 });
const localDay = (d: Date) => `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;

describe.each(VIEWPORTS)('History at %o', (viewport) => {
  const tag = viewport.width;

  it('groups watches by day, newest first, and loads the next page by "Load more" and by scrolling to the end', async () => {
    await historian(`pager_${tag}`);
    const { context, page } = await signedInApp(web, `pager_${tag}`, viewport, '/history');
    try {
      await expect.poll(() => entryRows(page).count(), WAIT).toBe(25);
      expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('History');
      const first = entryRows(page).first();
      expect(await first.getByRole('link').textContent()).toBe(movie.name);
      expect(await first.getByRole('link').getAttribute('href')).toBe(`/title/movie/${movie.movie_db_id}`);
      const episode = entryRows(page).nth(1);
      expect(await episode.textContent()).toContain('S1 E2');
      expect(await episode.locator('time').getAttribute('datetime')).toBe(noonDaysAgo(2, 30).toISOString());
      // Yesterday, the day before, and the rewatches' days: newest first.
      const days = await dayHeadings(page).locator('time').evaluateAll((els) => els.map((e) => e.getAttribute('datetime')!));
      expect(days.length).toBeGreaterThanOrEqual(3);
      expect([...days].sort().reverse()).toEqual(days);
      expect(days.slice(0, 2)).toEqual([localDay(noonDaysAgo(1)), localDay(noonDaysAgo(2))]);
      await expectGoodPage(page);

      // By scrolling: the end of the list coming into view loads the next page by itself.
      await page.locator('.history-end').scrollIntoViewIfNeeded();
      await expect.poll(() => entryRows(page).count(), WAIT).toBe(3 + REWATCHES);
      await expect.poll(() => page.getByText('That is all of your history.').count(), WAIT).toBe(1);
      await expectGoodPage(page);

      // From the keyboard, with a filter of two pages too (the movies: 1 + REWATCHES).
      await page.getByRole('combobox', { name: 'Type' }).selectOption({ label: 'Movies' });
      await expect.poll(() => page.getByRole('button', { name: 'Load more' }).count(), WAIT).toBe(1);
      expect(await entryRows(page).count()).toBe(25);
      await page.getByRole('button', { name: 'Load more' }).focus();
      await page.keyboard.press('Enter');
      await expect.poll(() => entryRows(page).count(), WAIT).toBe(1 + REWATCHES);
      expect(await page.locator('.history-entry-episode').count()).toBe(0);
    } finally {
      await context.close();
    }
  });

  it('filters by type and by days', async () => {
    await historian(`filter_${tag}`);
    const { context, page } = await signedInApp(web, `filter_${tag}`, viewport, '/history');
    try {
      await expect.poll(() => entryRows(page).count(), WAIT).toBe(25);
      const type = page.getByRole('combobox', { name: 'Type' });
      // Movies: the movie and the rewatches (a first page of them), no episode.
      await type.selectOption({ label: 'Movies' });
      await expect.poll(async () => [await entryRows(page).count(), await page.locator('.history-entry-episode').count()], WAIT).toEqual([25, 0]);
      expect(await entryRows(page).first().getByRole('link').textContent()).toBe(movie.name);
      await type.selectOption({ label: 'Shows' });
      await expect.poll(() => entryRows(page).count(), WAIT).toBe(2);
      await expectGoodPage(page);
      await type.selectOption({ label: 'All' });

      const day = localDay(noonDaysAgo(2));
      await page.getByLabel('From').fill(day);
      await page.getByLabel('To').fill(day);
      await expect.poll(() => entryRows(page).count(), WAIT).toBe(2);
      expect(await dayHeadings(page).locator('time').getAttribute('datetime')).toBe(day);

      const tomorrow = localDay(new Date(Date.now() + DAY_MS));
      await page.getByLabel('To').fill(tomorrow);
      await page.getByLabel('From').fill(tomorrow);
      await expect.poll(() => page.getByText('No watches match these filters').count(), WAIT).toBe(1);
      await expectGoodPage(page);

      await page.getByRole('button', { name: 'Clear filters' }).click();
      await expect.poll(() => entryRows(page).count(), WAIT).toBe(25);
    } finally {
      await context.close();
    }
  });

  it('edits a date in place, and puts it back with a message when the service refuses', async () => {
    const user = await historian(`editor_${tag}`);
    const { context, page } = await signedInApp(web, `editor_${tag}`, viewport, '/history');
    try {
      await expect.poll(() => entryRows(page).count(), WAIT).toBe(25);
      const target = (await user.entries())[0]!;
      const row = page.locator(`#entry-${target.id}`);
      await row.getByRole('button', { name: 'Edit date' }).click();
      const field = page.getByLabel('Watched at');
      await expect.poll(() => field.evaluate((el) => el === el.ownerDocument.activeElement), WAIT).toBe(true);
      await expectGoodPage(page);

      // Moved to the day before yesterday, in the evening: from the keyboard.
      const moved = noonDaysAgo(2, 6 * 60);
      const local = `${localDay(moved)}T${String(moved.getHours()).padStart(2, '0')}:${String(moved.getMinutes()).padStart(2, '0')}`;
      await field.fill(local);
      await page.keyboard.press('Enter');
      await expect.poll(async () => (await user.entries()).find((e) => e.id === target.id)?.watchedAt, WAIT).toBe(moved.toISOString());
      await expect.poll(() => row.locator('time').getAttribute('datetime'), WAIT).toBe(moved.toISOString());
      expect(await row.evaluate((el) => el.closest('section')!.querySelector('h2 time')!.getAttribute('datetime'))).toBe(localDay(moved));

      // Tomorrow is refused: the entry goes back to where it was and a message says why.
      await row.getByRole('button', { name: 'Edit date' }).click();
      const future = new Date(Date.now() + 2 * DAY_MS);
      await page.getByLabel('Watched at').fill(`${localDay(future)}T12:00`);
      await page.getByRole('button', { name: 'Save' }).click();
      await expect.poll(() => page.locator('.toast-error').textContent(), WAIT).toContain('must not be in the future');
      await expect.poll(() => row.locator('time').getAttribute('datetime'), WAIT).toBe(moved.toISOString());
      expect((await user.entries()).find((e) => e.id === target.id)?.watchedAt).toBe(moved.toISOString());
      await expectGoodPage(page);

      // Cancel leaves the entry as it was.
      await row.getByRole('button', { name: 'Edit date' }).click();
      await page.getByRole('button', { name: 'Cancel' }).click();
      await expect.poll(() => row.getByRole('button', { name: 'Edit date' }).evaluate((el) => el === el.ownerDocument.activeElement), WAIT).toBe(true);
    } finally {
      await context.close();
    }
  });

  it('deletes an entry after "Confirm delete", and "Cancel" keeps it', async () => {
    const user = await historian(`deleter_${tag}`);
    const { context, page } = await signedInApp(web, `deleter_${tag}`, viewport, '/history');
    try {
      await expect.poll(() => entryRows(page).count(), WAIT).toBe(25);
      const [first, second] = (await user.entries()) as [Entry, Entry];
      const row = page.locator(`#entry-${first.id}`);
      await row.getByRole('button', { name: 'Delete' }).click();
      const confirm = row.getByRole('button', { name: 'Confirm delete' });
      await expect.poll(() => confirm.evaluate((el) => el === el.ownerDocument.activeElement), WAIT).toBe(true);
      await expectGoodPage(page);
      await row.getByRole('button', { name: 'Cancel' }).click();
      await expect.poll(() => row.getByRole('button', { name: 'Delete' }).evaluate((el) => el === el.ownerDocument.activeElement), WAIT).toBe(true);

      await page.keyboard.press('Enter');
      await confirm.focus();
      await page.keyboard.press('Enter');
      await expect.poll(() => row.count(), WAIT).toBe(0);
      await expect.poll(async () => (await user.entries()).map((e) => e.id), WAIT).not.toContain(first.id);
      // The focus goes on to the next entry.
      await expect.poll(() => page.locator(`#entry-${second.id}`).evaluate((el) => el === el.ownerDocument.activeElement), WAIT).toBe(true);
      await expectGoodPage(page);
    } finally {
      await context.close();
    }
  });

  it('says what to do with no history, signed out, and when the service cannot be reached', async () => {
    await member(web.app, `newcomer_${tag}`, SCOPES);
    const { context, page } = await signedInApp(web, `newcomer_${tag}`, viewport, '/history');
    try {
      await expect.poll(() => page.getByText('You have not logged a watch yet').count(), WAIT).toBe(1);
      expect(await page.getByRole('main').textContent()).toContain('mark it as watched');
      await expectGoodPage(page);

      // A filter's first read fails (the network is down): the page says so, and "Try again" reads it again.
      await page.route('**/trpc/**', (route) => (route.request().url().includes('history.list') ? route.abort() : route.fallback()));
      await page.getByRole('combobox', { name: 'Type' }).selectOption({ label: 'Movies' });
      await expect.poll(() => page.getByRole('main').getByRole('alert').textContent(), WAIT).toContain('Try again');
      await expectGoodPage(page);
      await page.unroute('**/trpc/**');
      await page.getByRole('button', { name: 'Try again' }).click();
      await expect.poll(() => page.getByText('No watches match these filters').count(), WAIT).toBe(1);
    } finally {
      await context.close();
    }
    const visitor = await openApp(web, viewport, '/history');
    try {
      await expect.poll(() => visitor.page.getByText('Sign in to see your watch history.').count(), WAIT).toBe(1);
      await expectGoodPage(visitor.page);
    } finally {
      await visitor.context.close();
    }
  });
});
