// The web app's account pages in Chromium at a phone's and a desk's size: public profiles (readable
// signed out; a private profile and an unknown name look the same), Settings (the profile and the
// preferences kept after a reload; a refused save's message by its field or in an alert), and the
// Notifications inbox with the header's badge (mark one at once, load more, mark all, a refused mark
// rolled back with a message). Every page state passes expectGoodPage.
import type { Page, Request, Route } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { transaction } from '../src/core/db/transaction.ts';
import { ApiError } from '../src/core/errors.ts';
import { recordNotification } from '../src/core/notifications/record.ts';
import { trpcErrorBody } from '../src/rpc/errors.ts';
import { member, ok, platform, SPIRITED_AWAY } from './helpers/seed.ts';
import { expectGoodPage, signedInApp, startWebApp, VIEWPORTS, type WebApp } from './helpers/web-app.ts';

let web: WebApp;
let listOfPat: number;

beforeAll(async () => {
  web = await startWebApp();
  const pat = await member(web.app, 'pat_public', ['profile:write', 'history:write', 'lists:write']);
  await ok(platform(web.app, pat.token, 'PATCH', '/me/profile', { displayName: 'Pat Doe', bio: 'Films on Sundays.\nShows on weekdays.' }));
  await ok(platform(web.app, pat.token, 'POST', '/watch-history', { type: 'movie', movieDbId: SPIRITED_AWAY }));
  listOfPat = (await ok(platform(web.app, pat.token, 'POST', '/lists', { name: 'Pat’s picks', description: 'Comfort films.', isPublic: true }))).id as number;
  await ok(platform(web.app, pat.token, 'POST', `/lists/${listOfPat}/items`, { items: [{ type: 'movie', movieDbId: SPIRITED_AWAY }] }));
  const quinn = await member(web.app, 'quinn_private', ['profile:write']);
  await ok(platform(web.app, quinn.token, 'PATCH', '/me/profile', { displayName: 'Quinn Hidden', privacy: 'private' }));
});

afterAll(async () => {
  await web?.stop();
});

const isCall = (procedure: string) => (url: URL) => url.pathname.startsWith('/trpc/') && decodeURIComponent(url.pathname).includes(procedure);

/** Answers every call of `procedure` (and the calls batched with it) as the service does a rate-limited one, until the function it returns is called. */
async function rateLimit(page: Page, procedure: string): Promise<() => Promise<void>> {
  const matcher = isCall(procedure);
  await page.route(matcher, (route: Route) => {
    const calls = decodeURIComponent(new URL(route.request().url()).pathname.slice('/trpc/'.length)).split(',');
    const body = trpcErrorBody(new ApiError('rate_limited', 'Too many requests', { retry_after: 7 }), 'test');
    return route.fulfill({ status: 429, contentType: 'application/json', body: JSON.stringify(calls.map(() => body)) });
  });
  return () => page.unroute(matcher);
}

/** Holds the calls of `procedure` until `release()`; `held` resolves when the first one is waiting. */
async function hold(page: Page, procedure: string): Promise<{ held: Promise<Request>; release: () => void }> {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  let heldOne!: (r: Request) => void;
  const held = new Promise<Request>((resolve) => (heldOne = resolve));
  await page.route(isCall(procedure), async (route: Route) => {
    heldOne(route.request());
    await gate;
    await route.continue();
  });
  return { held, release };
}

async function newPage(viewport: { width: number; height: number }) {
  const context = await web.browser.newContext({ viewport, reducedMotion: 'reduce' });
  return { context, page: await context.newPage() };
}

/** Waits for what a page shows after a call (the machine may be slow: a busy 2-core box). */
const eventually = <T>(read: () => T | Promise<T>) => expect.poll(read, { timeout: 20_000, interval: 100 });

const heading = (page: Page, name: string) => page.getByRole('heading', { level: 1, name, exact: true });

describe.each(VIEWPORTS)('signed out at %o', (viewport) => {
  it('a public profile: loading, then name, bio, figures, recent watches and public lists; a rate limit says when to try again', async () => {
    const { context, page } = await newPage(viewport);
    try {
      const profile = await hold(page, 'public.users.get');
      await page.goto(`${web.app.url}/u/pat_public`);
      await profile.held;
      await eventually(() => page.getByRole('status').filter({ hasText: 'Loading the profile' }).count()).toBe(1);
      await expectGoodPage(page);
      profile.release();

      await eventually(() => heading(page, 'Pat Doe').count()).toBe(1);
      expect(await page.title()).toBe('Pat Doe (@pat_public) · Media Tracker');
      expect(await page.getByText('@pat_public · Joined').count()).toBe(1);
      expect(await page.getByText('Films on Sundays.').textContent()).toBe('Films on Sundays.\nShows on weekdays.');
      const figure = (label: string) => page.locator('.figure').filter({ has: page.getByText(label, { exact: true }) }).locator('dd').textContent();
      expect(await figure('Movies')).toBe('1');
      expect(await figure('Watches')).toBe('1');
      expect(await figure('Public lists')).toBe('1');
      const watches = page.getByRole('list', { name: 'Recent watches' });
      expect(await watches.getByRole('link').first().getAttribute('href')).toBe(`/title/movie/${SPIRITED_AWAY}`);
      expect(await watches.textContent()).toContain('Spirited Away');
      expect(await page.getByRole('list', { name: 'Public lists' }).getByRole('link', { name: 'Pat’s picks' }).getAttribute('href')).toBe(`/lists/${listOfPat}`);
      expect(await page.getByRole('list', { name: 'Public lists' }).textContent()).toContain('1 title · 0 likes');
      expect(await page.getByText('Pat Doe has no favourites yet.').count()).toBe(1);
      await expectGoodPage(page);

      const stop = await rateLimit(page, 'public.users.get');
      await page.reload();
      const alert = page.getByRole('alert').filter({ hasText: 'try again in 7 s' });
      await eventually(() => alert.count()).toBe(1);
      expect(await alert.textContent()).toContain('Too many requests: try again in 7 s.');
      await expectGoodPage(page);
      await stop();
      await alert.getByRole('button', { name: 'Try again' }).click();
      await eventually(() => heading(page, 'Pat Doe').count()).toBe(1);
    } finally {
      await context.close();
    }
  });

  it('a private profile and a name nobody has show the same page', async () => {
    const { context, page } = await newPage(viewport);
    try {
      const seen = async (username: string) => {
        await page.goto(`${web.app.url}/u/${username}`);
        await eventually(() => heading(page, 'No user by that name').count()).toBe(1);
        await expectGoodPage(page);
        return { title: await page.title(), main: await page.getByRole('main').innerHTML() };
      };
      const hidden = await seen('quinn_private');
      const unknown = await seen('nobody_here');
      expect(hidden).toEqual(unknown);
      expect(hidden.title).toBe('No user by that name · Media Tracker');
      expect(hidden.main).not.toContain('Quinn');
    } finally {
      await context.close();
    }
  });

  it('settings and notifications ask a visitor to sign in', async () => {
    const { context, page } = await newPage(viewport);
    try {
      for (const [path, title, what] of [['/settings', 'Settings', 'your settings'], ['/notifications', 'Notifications', 'your notifications']] as const) {
        await page.goto(`${web.app.url}${path}`);
        await eventually(() => page.getByText(`Sign in to see ${what}.`).count()).toBe(1);
        expect(await heading(page, title).count()).toBe(1);
        expect(await page.getByRole('main').getByRole('button', { name: 'Sign in' }).count()).toBe(1);
        await expectGoodPage(page);
      }
    } finally {
      await context.close();
    }
  });
});

describe.each(VIEWPORTS)('signed in at %o', (viewport) => {
  const suffix = viewport.width;

  it('settings: the profile and every preference are kept after a reload; refusals show by the field or in an alert', async () => {
    const username = `sam_${suffix}`;
    const { context, page } = await signedInApp(web, username, viewport, '/settings');
    try {
      const field = (label: string) => page.getByLabel(label, { exact: true });
      const kind = (name: string) => page.getByRole('group', { name, exact: true });
      await eventually(() => field('Display name').inputValue()).toBe(username);
      await eventually(() => field('Region').count()).toBe(1);
      expect(await field('Count as watched at (percent)').inputValue()).toBe('80');
      for (const label of ['Connected apps', 'Developer apps', 'Import', 'Export']) {
        const href = await page.getByRole('link', { name: label, exact: true }).getAttribute('href');
        expect(href).toBe({ 'Connected apps': '/account/connected-apps', 'Developer apps': '/account/apps', Import: '/account/import', Export: '/account/export' }[label]);
      }
      await expectGoodPage(page);

      // The profile by keyboard: type, Tab to "Private profile", Space, Tab to "Save profile", Enter.
      await field('Display name').fill('Sam Settings');
      await field('Avatar').fill('https://img.example/sam.png');
      await field('Bio').fill('Two lines\nof bio');
      await field('Bio').focus();
      await page.keyboard.press('Tab');
      expect(await field('Private profile').evaluate((el) => el === el.ownerDocument.activeElement)).toBe(true);
      await page.keyboard.press('Space');
      await page.keyboard.press('Tab');
      expect(await page.getByRole('button', { name: 'Save profile' }).evaluate((el) => el === el.ownerDocument.activeElement)).toBe(true);
      await page.keyboard.press('Enter');
      await eventually(() => page.getByRole('status').filter({ hasText: 'Profile saved.' }).count()).toBe(1);

      await field('Region').fill('gb');
      await field('Language').fill('en-gb');
      await field('Hide overviews').check();
      await field('Hide community ratings').check();
      await field('Count as watched at (percent)').fill('90');
      await kind('Likes of your lists').getByRole('checkbox', { name: 'In the app' }).uncheck();
      await kind('Trophies you earn').getByRole('checkbox', { name: 'Push' }).uncheck();
      await page.getByRole('button', { name: 'Save preferences' }).click();
      await eventually(() => page.getByRole('status').filter({ hasText: 'Preferences saved.' }).count()).toBe(1);
      // The service's canonical forms come back into the form.
      expect(await field('Region').inputValue()).toBe('GB');
      expect(await field('Language').inputValue()).toBe('en-GB');
      await expectGoodPage(page);

      await page.reload();
      await eventually(() => field('Display name').inputValue()).toBe('Sam Settings');
      await eventually(() => field('Region').count()).toBe(1);
      expect(await field('Avatar').inputValue()).toBe('https://img.example/sam.png');
      expect(await field('Bio').inputValue()).toBe('Two lines\nof bio');
      expect(await field('Private profile').isChecked()).toBe(true);
      expect(await field('Region').inputValue()).toBe('GB');
      expect(await field('Language').inputValue()).toBe('en-GB');
      expect(await field('Hide episode titles').isChecked()).toBe(false);
      expect(await field('Hide overviews').isChecked()).toBe(true);
      expect(await field('Hide episode images').isChecked()).toBe(false);
      expect(await field('Hide community ratings').isChecked()).toBe(true);
      expect(await field('Count as watched at (percent)').inputValue()).toBe('90');
      expect(await kind('Likes of your lists').getByRole('checkbox', { name: 'In the app' }).isChecked()).toBe(false);
      expect(await kind('Likes of your lists').getByRole('checkbox', { name: 'Push' }).isChecked()).toBe(true);
      expect(await kind('Trophies you earn').getByRole('checkbox', { name: 'In the app' }).isChecked()).toBe(true);
      expect(await kind('Trophies you earn').getByRole('checkbox', { name: 'Push' }).isChecked()).toBe(false);
      expect(await kind('List invitations').getByRole('checkbox', { name: 'In the app' }).isChecked()).toBe(true);

      // A display name over 64 characters: the service's message under the field, which takes the focus.
      await field('Display name').fill('x'.repeat(65));
      await page.getByRole('button', { name: 'Save profile' }).click();
      const nameError = page.getByText('Display name must be 1 to 64 characters without control characters');
      await eventually(() => nameError.count()).toBe(1);
      expect(await field('Display name').getAttribute('aria-invalid')).toBe('true');
      expect(await field('Display name').evaluate((el) => el === el.ownerDocument.activeElement)).toBe(true);
      expect(await field('Display name').getAttribute('aria-describedby')).toContain(await nameError.getAttribute('id'));
      await expectGoodPage(page);

      // A region that is not two letters: the same, for a preference.
      await field('Region').fill('Great Britain');
      await page.getByRole('button', { name: 'Save preferences' }).click();
      await eventually(() => page.getByText('Region: must be two letters (ISO 3166-1 alpha-2)').count()).toBe(1);
      expect(await field('Region').getAttribute('aria-invalid')).toBe('true');

      // A rate-limited save: an alert saying when to try again; the typed value stays.
      await rateLimit(page, 'platform.accountProfile.updatePreferences');
      await field('Region').fill('IE');
      await page.getByRole('button', { name: 'Save preferences' }).click();
      const alert = page.getByRole('alert').filter({ hasText: 'Too many requests: try again in 7 s.' });
      await eventually(() => alert.count()).toBe(1);
      expect(await field('Region').inputValue()).toBe('IE');
      expect(await field('Region').getAttribute('aria-invalid')).toBe(null);
      await expectGoodPage(page);

      // This user has no notifications: the inbox says what will show there.
      await page.getByRole('link', { name: 'Notifications', exact: true }).click();
      await eventually(() => page.getByText('No notifications yet.', { exact: false }).count()).toBe(1);
      await expectGoodPage(page);
    } finally {
      await context.close();
    }
  });

  it('notifications: the badge counts them, "Mark read" lowers it at once, "Load more" pages, "Mark all read" clears it, a refused mark rolls back', async () => {
    const nina = await member(web.app, `nina_${suffix}`, ['notifications:read']);
    const owen = await member(web.app, `owen_${suffix}`, ['lists:write', 'profile:write']);
    const notify = (n: number) =>
      transaction(web.app.db.orm.em.fork(), (tx) =>
        recordNotification(tx, { userId: nina.userId, kind: 'trophy_earned', title: `Trophy earned: Watcher ${n}`, body: `Watch ${n} movies.`, data: { id: `movies-${n}` } }),
      );
    for (let n = 1; n <= 21; n++) await notify(n);
    // The newest: a list invitation from another user, through the API (its producer records it).
    await ok(platform(web.app, owen.token, 'PATCH', '/me/profile', { displayName: 'Owen' }));
    const list = (await ok(platform(web.app, owen.token, 'POST', '/lists', { name: 'Owen’s picks', isPublic: true }))).id as number;
    await ok(platform(web.app, owen.token, 'POST', `/lists/${list}/collaborators`, { username: nina.username }));

    const { context, page } = await signedInApp(web, nina.username, viewport, '/');
    try {
      const badge = (name: string) => page.getByRole('banner').getByRole('link', { name, exact: true });
      await eventually(() => badge('Notifications, 22 unread').count()).toBe(1);
      await badge('Notifications, 22 unread').click();
      await page.waitForURL((u) => u.pathname === '/notifications');
      const inbox = page.getByRole('list', { name: 'Notifications' });
      await eventually(() => inbox.getByRole('listitem').count()).toBe(20);
      const first = inbox.getByRole('listitem').first();
      expect(await first.textContent()).toContain('Unread');
      expect(await first.getByRole('link', { name: 'Owen invited you to a list' }).getAttribute('href')).toBe(`/lists/${list}`);
      expect(await page.getByRole('status').filter({ hasText: '22 unread.' }).count()).toBe(1);
      await expectGoodPage(page);

      // Marked read by keyboard: the badge goes down while the call is still on its way.
      const held = await hold(page, 'platform.notifications.markRead');
      await first.getByRole('button', { name: 'Mark read' }).focus();
      await page.keyboard.press('Enter');
      await held.held;
      await eventually(() => badge('Notifications, 21 unread').count()).toBe(1);
      expect(await first.getByRole('button', { name: 'Mark read' }).count()).toBe(0);
      expect(await first.textContent()).not.toContain('Unread');
      // The keyboard stays on the notification that lost its button.
      expect(await first.locator('article').evaluate((el) => el === el.ownerDocument.activeElement)).toBe(true);
      held.release();
      await eventually(() => page.getByRole('status').filter({ hasText: '21 unread.' }).count()).toBe(1);
      await eventually(() => badge('Notifications, 21 unread').count()).toBe(1);

      await page.getByRole('button', { name: 'Load more' }).click();
      await eventually(() => inbox.getByRole('listitem').count()).toBe(22);
      expect(await page.getByRole('button', { name: 'Load more' }).count()).toBe(0);
      await expectGoodPage(page);

      await page.getByRole('button', { name: 'Mark all read' }).click();
      await eventually(() => badge('Notifications').count()).toBe(1);
      expect(await inbox.getByRole('button', { name: 'Mark read' }).count()).toBe(0);
      await eventually(() => page.getByRole('status').filter({ hasText: 'All read.' }).count()).toBe(1);
      await expectGoodPage(page);

      // After a reload the service's own state shows: nothing unread.
      await page.reload();
      await eventually(() => inbox.getByRole('listitem').count()).toBe(20);
      expect(await badge('Notifications').count()).toBe(1);
      expect(await inbox.getByRole('button', { name: 'Mark read' }).count()).toBe(0);

      // A new one, and a refused mark: the badge and the item come back, with the reason.
      await notify(22);
      await page.reload();
      await eventually(() => badge('Notifications, 1 unread').count()).toBe(1);
      await rateLimit(page, 'platform.notifications.markRead');
      await inbox.getByRole('listitem').first().getByRole('button', { name: 'Mark read' }).click();
      await eventually(() => page.getByText('Not marked read: Too many requests: try again in 7 s.').count()).toBe(1);
      await eventually(() => badge('Notifications, 1 unread').count()).toBe(1);
      expect(await inbox.getByRole('listitem').first().getByRole('button', { name: 'Mark read' }).count()).toBe(1);
      await expectGoodPage(page);
    } finally {
      await context.close();
    }
  });
});
