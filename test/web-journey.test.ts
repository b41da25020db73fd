// The web app as a new user goes through it, at a phone's and a desk's size, against the real service:
// sign in through the service's page, search a misspelt title in the header, open it, mark it watched,
// find it in history and stats, rate it, add it to a new list, reorder that list, then see a scrobble
// sent by another app appear in Continue Watching and another user's invitation in the unread badge,
// without a reload, and sign out (a reload stays signed out). Every page on the way passes the page checks (no sideways scroll, 44 px targets, axe-core).
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { screenshotPath } from './helpers/browser.ts';
import { call } from './helpers/http.ts';
import { makeApp, makeUser } from './helpers/oauth.ts';
import { SPIRITED_AWAY } from './helpers/seed.ts';
import { issueToken } from './helpers/tokens.ts';
import { expectGoodPage, PHONE, signedInApp, startWebApp, VIEWPORTS, type WebApp } from './helpers/web-app.ts';

let web: WebApp;
beforeAll(async () => {
  web = await startWebApp();
});
afterAll(async () => {
  await web?.stop();
});

/** Waits for what a step changes (a loaded 2-core machine may take seconds), never for a fixed time. */
const eventually = <T>(fn: () => T | Promise<T>) => expect.poll(fn, { timeout: 30_000, interval: 100 });

/** The same titles the fixture holds: a second item for the list. */
const TOY_STORY = 862;

/** A section of the header's navigation (behind "Menu" on a phone). */
async function openSection(page: Page, name: string, phone: boolean) {
  if (phone) await page.getByRole('button', { name: 'Menu' }).click();
  await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name, exact: true }).click();
  await eventually(() => page.getByRole('heading', { level: 1, name }).count()).toBe(1);
}

/** Waits until nothing on the page is loading (no skeleton left). */
async function settled(page: Page) {
  await eventually(() => page.locator('.skeletons').count()).toBe(0);
}

describe.each(VIEWPORTS)('a new user at %o', (viewport) => {
  it('signs in, finds and marks a title, rates it, lists it, reorders, sees a scrobble live, signs out', async () => {
    const phone = viewport === PHONE;
    const username = `journey_${viewport.width}`;
    const user = await makeUser(web.app, username);
    const api = async (method: string, path: string, token: string, body?: unknown) => call(web.app, `/api/platform/v1${path}`, { method, token, body });
    const { context, page } = await signedInApp(web, username, viewport);
    // Whatever the page tries that its Content-Security-Policy refuses shows as a console error.
    const refused: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error' && /Content Security Policy/i.test(m.text())) refused.push(m.text());
    });
    try {
      // Home, signed in.
      await eventually(() => page.getByRole('heading', { level: 1, name: 'Home' }).count()).toBe(1);
      await settled(page);
      await expectGoodPage(page);

      // Search in the header, misspelt; open the title from the results.
      await page.getByRole('combobox', { name: 'Search' }).fill('spirted awey');
      const option = page.getByRole('option', { name: /Spirited Away/ }).first();
      await option.click();
      await page.waitForURL((u) => u.pathname === `/title/movie/${SPIRITED_AWAY}`);
      await eventually(() => page.getByRole('heading', { level: 1, name: 'Spirited Away' }).count()).toBe(1);
      await settled(page);
      await expectGoodPage(page);
      await page.screenshot({ path: screenshotPath(`web-title-${viewport.width}`) });

      // Mark it watched now.
      await page.getByRole('button', { name: 'Mark as watched', exact: true }).click();
      await eventually(() => page.locator('.watch-summary').textContent()).toMatch(/watched/i);

      // History shows it; stats count it.
      await openSection(page, 'History', phone);
      await eventually(() => page.getByRole('main').getByRole('link', { name: 'Spirited Away' }).count()).toBeGreaterThan(0);
      await settled(page);
      await expectGoodPage(page);
      await openSection(page, 'Stats', phone);
      await settled(page);
      await eventually(() => page.getByRole('main').textContent()).toMatch(/Movies\s*1(?!\d)/);
      await expectGoodPage(page);

      // Back to the title: rate it 8, which stays after a reload.
      await page.goBack();
      await page.goBack();
      await page.waitForURL((u) => u.pathname === `/title/movie/${SPIRITED_AWAY}`);
      const saved = page.waitForResponse((r) => r.request().method() === 'POST' && new URL(r.url()).pathname.startsWith('/trpc/') && r.url().includes('ratings'));
      await page.getByLabel('Rating', { exact: true }).selectOption('8');
      expect((await saved).status()).toBe(200);
      await page.reload();
      await eventually(() => page.getByLabel('Rating', { exact: true }).inputValue()).toBe('8');

      // Add it to a new list, made from the title page.
      await page.getByText('Add to list', { exact: true }).click();
      await page.getByLabel('New list name').fill('Ghibli night');
      await page.getByRole('button', { name: 'Create list and add' }).click();
      const token = await issueToken(web.app, { userId: user.id, clientId: (await makeApp(web.app, { name: 'Second screen' })).client_id, scope: 'lists:read lists:write playback:write playback:read' });
      let listId = '';
      await eventually(async () => {
          const lists = (await api('GET', '/me/lists', token)).body as { items?: Array<{ id: string | number; name: string }> };
          listId = String(lists.items?.find((l) => l.name === 'Ghibli night')?.id ?? '');
          return listId;
        })
        .not.toBe('');
      // The page makes the list, then adds the title in a second call: wait for that one, or the other
      // app's title could land first and leave Spirited Away last (its "Move down" then disabled).
      const listed = async () => (((await api('GET', `/lists/${listId}/items`, token)).body as { items?: Array<{ movieDbId: number }> }).items ?? []).map((i) => i.movieDbId);
      await eventually(listed).toEqual([SPIRITED_AWAY]);
      // A second item, added by another app, to have something to reorder.
      expect((await api('POST', `/lists/${listId}/items`, token, { items: [{ type: 'movie', movieDbId: TOY_STORY }] })).status).toBe(200);

      // The list: move Spirited Away below Toy Story with the keyboard path.
      await openSection(page, 'Lists', phone);
      await page.getByRole('link', { name: /Ghibli night/ }).first().click();
      await eventually(() => page.getByRole('heading', { level: 1, name: 'Ghibli night' }).count()).toBe(1);
      await settled(page);
      await expectGoodPage(page);
      await page.getByRole('button', { name: 'Move Spirited Away down' }).click();
      await eventually(listed).toEqual([TOY_STORY, SPIRITED_AWAY]);

      // Home: another app starts playing; Continue Watching shows it without a reload.
      await page.getByRole('link', { name: 'Media Tracker' }).click();
      await eventually(() => page.getByRole('heading', { level: 1, name: 'Home' }).count()).toBe(1);
      await settled(page);
      const started = await api('POST', '/playback/start', token, {
        event_id: `journey-${viewport.width}`,
        event_created_at: Date.now(),
        media_type: 'movie',
        title: 'Toy Story',
        movie_db_id: TOY_STORY,
        playback_session_id: `journey-session-${viewport.width}`,
        progress: 0.25,
        duration_seconds: 4860,
      });
      expect(started.status).toBe(200);
      const cw = page.getByRole('list', { name: 'Continue Watching' });
      await eventually(() => cw.getByRole('link', { name: /Toy Story/ }).count()).toBe(1);
      await expectGoodPage(page);
      await page.screenshot({ path: screenshotPath(`web-home-${viewport.width}`) });

      // Another user invites this one to a list: the unread badge goes up without a reload.
      const badge = page.getByRole('link', { name: /^Notifications/ });
      const unread = async () => Number(/(\d+) unread/.exec((await badge.getAttribute('aria-label')) ?? '')?.[1] ?? 0);
      const before = await unread();
      const friend = await makeUser(web.app, `friend_${viewport.width}`);
      const friendToken = await issueToken(web.app, { userId: friend.id, clientId: (await makeApp(web.app, { name: 'Friend app' })).client_id, scope: 'lists:read lists:write' });
      const friendList = (await api('POST', '/lists', friendToken, { name: 'Watch together' })).body as { id: number };
      expect((await api('POST', `/lists/${friendList.id}/collaborators`, friendToken, { username })).status).toBe(200);
      await eventually(unread).toBe(before + 1);

      // Sign out: the header offers to sign in, and a reload stays signed out.
      await page.getByRole('button', { name: 'Sign out' }).click();
      await eventually(() => page.getByRole('banner').getByRole('button', { name: 'Sign in' }).count()).toBe(1);
      await page.reload();
      await eventually(() => page.getByRole('banner').getByRole('button', { name: 'Sign in' }).count()).toBe(1);
      await eventually(() => page.getByRole('button', { name: 'Sign out' }).count()).toBe(0);
      expect(refused).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
