// The first-party web app in Chromium: the service with a small catalog, a page at a phone's or a
// desk's size, signing in as a person does (the app's "Sign in" button, the service's sign-in page, back
// to the app), and the checks every page gets: no sideways scroll, touch targets, axe-core.
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { expect } from 'vitest';
import { startTestApp, type TestApp } from './app.ts';
import { expectAccessible } from './axe.ts';
import { expectNoSidewaysScroll, launchBrowser } from './browser.ts';
import { makeUser, PASSWORD } from './oauth.ts';
import { seedCatalog } from './seed.ts';

export const PHONE = { width: 390, height: 844 };
const DESK = { width: 1280, height: 800 };
export const VIEWPORTS = [PHONE, DESK] as const;

/**
 * Images come from an address nothing answers on, so every poster falls back to its placeholder and no
 * test depends on another host.
 */
const IMAGE_BASE_URL = 'http://127.0.0.1:9/images';

export type WebApp = { app: TestApp; browser: Browser; stop(): Promise<void> };

/** The service with the seed catalog (the fixture movies, Spirited Away among them, and `shows` synthetic shows), and a browser. */
export async function startWebApp(opts: { shows?: number; env?: Record<string, string> } = {}): Promise<WebApp> {
  const app = await startTestApp({ IMAGE_BASE_URL, ...opts.env });
  await seedCatalog(app, { shows: opts.shows ?? 3 });
  const browser = await launchBrowser();
  return {
    app,
    browser,
    stop: async () => {
      await browser.close();
      await app.stop();
    },
  };
}

/** How the browser is set up besides its size: the system's colour scheme (light unless given). */
type BrowserLook = { colorScheme?: 'light' | 'dark' };

/** A new browser at `viewport` with the app's page open at `path` (not signed in). */
export async function openApp(web: WebApp, viewport: { width: number; height: number }, path = '/', look: BrowserLook = {}): Promise<{ context: BrowserContext; page: Page }> {
  const context = await web.browser.newContext({ viewport, reducedMotion: 'reduce', colorScheme: look.colorScheme ?? 'light' });
  const page = await context.newPage();
  await page.goto(`${web.app.url}${path}`);
  return { context, page };
}

/**
 * A new user signed in to the app through the service's sign-in page, in a new browser at `viewport`;
 * the page is back at `path` afterwards. The username is made when it does not exist yet.
 */
export async function signedInApp(web: WebApp, username: string, viewport: { width: number; height: number }, path = '/', look: BrowserLook = {}): Promise<{ context: BrowserContext; page: Page }> {
  await makeUser(web.app, username).catch(() => undefined);
  const { context, page } = await openApp(web, viewport, path, look);
  await signInThroughApp(page, username);
  return { context, page };
}

/** From a signed-out app page: "Sign in", the service's form, and back to the page the app was on. */
async function signInThroughApp(page: Page, username: string): Promise<void> {
  const back = new URL(page.url());
  await page.getByRole('banner').getByRole('button', { name: 'Sign in' }).click();
  await page.getByLabel('Username').fill(username);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL((u) => u.pathname === back.pathname);
  await expect.poll(() => page.getByRole('button', { name: 'Sign out' }).count(), { timeout: 30_000 }).toBe(1);
}

/** The checks of every page: nothing scrolls sideways, controls are at least 44 px, and axe finds nothing. */
export async function expectGoodPage(page: Page): Promise<void> {
  await expectNoSidewaysScroll(page);
  await expectTouchTargets(page);
  await expectAccessible(page);
}

/** Every visible button, link, field and select is at least 44 px tall (links inside running text excepted). */
async function expectTouchTargets(page: Page): Promise<void> {
  // Evaluated as source in the page: the tests' TypeScript has no DOM types.
  const small = (await page.evaluate(`(() => {
    const out = [];
    for (const el of document.querySelectorAll('button, a[href], input:not([type=hidden]), select, [role=option], summary')) {
      const r = el.getBoundingClientRect();
      if (r.width === 0 && r.height === 0) continue;
      if (el.closest('.skip-link')) continue;
      // A link inside a sentence is sized by its text (WCAG 2.5.8 exempts inline targets).
      const parent = el.parentElement;
      if (el.tagName === 'A' && parent && ['P', 'LI', 'TD', 'SPAN'].includes(parent.tagName) && !el.classList.length && parent.textContent !== el.textContent) continue;
      if (r.height < 44 || r.width < 24) out.push(el.tagName.toLowerCase() + ' "' + (el.getAttribute('aria-label') || el.textContent || '').trim().slice(0, 40) + '" ' + Math.round(r.width) + 'x' + Math.round(r.height));
    }
    return out;
  })()`)) as string[];
  expect(small, page.url()).toEqual([]);
}
