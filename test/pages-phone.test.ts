// Every server-rendered page at a phone's size (390x844) and a laptop's (1280x800) in Chromium: nothing
// scrolls sideways, even with an app name of 100 letters and no space and a 32-letter username; the
// consent page of an app asking for all 16 scopes keeps Allow and Deny on the first screen and every
// scope one tap away; the connected apps table stays a table on the laptop and becomes a card per app
// on the phone, with each Revoke button inside the screen; the export page and its download; a public
// app's page, which speaks of no secret and wraps long redirect URIs only between their parts; and the
// getting started of /docs, which passes axe.
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fs from 'node:fs/promises';
import { SCOPES } from '../src/core/apps/scopes.ts';
import { EXPORT_FORMAT } from '../src/core/export/schema.ts';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { expectAccessible } from './helpers/axe.ts';
import { expectNoSidewaysScroll, launchBrowser, screenshotPath } from './helpers/browser.ts';
import { authorizationUrl, codeFlowTokens, newCodeClient, REDIRECT } from './helpers/code-flow.ts';
import { makeApp, makeUser, postJson, signIn } from './helpers/oauth.ts';

let app: TestApp;
let browser: Browser;

beforeAll(async () => {
  app = await startTestApp();
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await app?.stop();
});

const VIEWPORTS = [
  { width: 390, height: 844 },
  { width: 1280, height: 800 },
];

/** The longest name an app may have, in the widest letter and without a place to break. */
const UNBROKEN_NAME = 'W'.repeat(100);

let users = 0;
/** A new user with the longest username allowed (32 characters), of wide letters. */
async function longUser(): Promise<string> {
  users += 1;
  const username = `${'W'.repeat(29)}${String(users).padStart(3, '0')}`;
  await makeUser(app, username);
  return username;
}

/** The element's box lies wholly inside the visible screen, as the page shows it before any scrolling. */
async function expectOnFirstScreen(page: Page, name: string, viewport: { width: number; height: number }) {
  expect(await page.locator('html').evaluate((html) => html.scrollTop)).toBe(0);
  const box = (await page.getByRole('button', { name, exact: true }).boundingBox())!;
  expect(box.x).toBeGreaterThanOrEqual(0);
  expect(box.y).toBeGreaterThanOrEqual(0);
  expect(box.x + box.width).toBeLessThanOrEqual(viewport.width);
  expect(box.y + box.height).toBeLessThanOrEqual(viewport.height);
}

/** Redirect URIs longer than a phone's line: words, a port, a private-use scheme. */
const LONG_URIS = [
  'https://tracker.example.com/oauth/callback/living-room-television/second-screen',
  'com.example.mediatracker.television:/oauth/callback',
  'http://127.0.0.1:8765/callback',
];

/** The element's text as laid out, one string per line. */
function lines(locator: Locator): Promise<string[]> {
  return locator.evaluate((el) => {
    const doc = el.ownerDocument;
    const walker = doc.createTreeWalker(el, 4 /* NodeFilter.SHOW_TEXT */);
    const rows: string[] = [];
    let top = Number.NEGATIVE_INFINITY;
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const text = node.textContent ?? '';
      for (let i = 0; i < text.length; i++) {
        const range = doc.createRange();
        range.setStart(node, i);
        range.setEnd(node, i + 1);
        const rect = range.getBoundingClientRect();
        if (rect.top > top + 1) {
          rows.push('');
          top = rect.top;
        }
        rows[rows.length - 1] += text[i];
      }
    }
    return rows;
  });
}

/** How many lines the element's text is laid out on. */
function lineCount(locator: Locator): Promise<number> {
  return locator.evaluate((el) => {
    const range = el.ownerDocument.createRange();
    range.selectNodeContents(el);
    return new Set([...range.getClientRects()].map((r) => r.top)).size;
  });
}

/** Opens a new app's authorization URL in `context`, signs in if asked, and returns the consent page. */
async function consentPage(context: BrowserContext, opts: { name: string; scopes: string[]; username: string; shot: string }): Promise<Page> {
  const c = await newCodeClient(app, { name: opts.name, scopes: opts.scopes });
  const { url } = await authorizationUrl(c, opts.scopes.join(' '));
  const page = await context.newPage();
  await page.route(`${REDIRECT}**`, (route) => route.fulfill({ status: 200, body: 'done' }));
  await page.goto(url.toString());
  const allow = page.getByRole('button', { name: 'Allow' });
  await page.getByRole('button', { name: 'Sign in' }).or(allow).waitFor();
  if (await page.getByRole('button', { name: 'Sign in' }).isVisible()) await signIn(page, opts.username, opts.shot);
  await allow.waitFor();
  return page;
}

describe.each(VIEWPORTS)('pages at $width x $height', (viewport) => {
  const shot = (name: string) => screenshotPath(`phone-${viewport.width}-${name}`);
  let context: BrowserContext;
  beforeAll(async () => {
    context = await browser.newContext({ viewport });
  });
  afterAll(async () => {
    await context?.close();
  });

  it('account sign-in fits the width', async () => {
    const page = await context.newPage();
    await page.goto(`${app.url}/account/connected-apps`);
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await page.screenshot({ path: shot('account-sign-in'), fullPage: true });
    await expectNoSidewaysScroll(page);
    await expectOnFirstScreen(page, 'Sign in', viewport);
    await page.close();
  });

  it('OAuth sign-in and a consent for all 16 scopes: Allow and Deny on the first screen, every scope on demand', async () => {
    const username = await longUser();
    const own = await browser.newContext({ viewport });
    const page = await consentPage(own, { name: UNBROKEN_NAME, scopes: [...SCOPES], username, shot: `phone-${viewport.width}-oauth-sign-in` });
    await page.screenshot({ path: shot('consent-16'), fullPage: true });
    await expectNoSidewaysScroll(page);
    await expectOnFirstScreen(page, 'Allow', viewport);
    await expectOnFirstScreen(page, 'Deny', viewport);

    // The summary names each area once per kind of access: 9 that can be seen, 7 that can be changed.
    const groups = page.locator('ul.scope-groups > li');
    expect(await groups.allInnerTexts()).toEqual([
      'See: profile, watch history, lists, ratings and favourites, collection, notifications, trophies, playback progress, live playback events',
      'Change: watch history, lists, ratings and favourites, collection, notifications, profile, playback progress',
    ]);
    // Every scope is there, folded away until asked for, under a heading per kind.
    const summary = page.getByText('All 16 permissions');
    expect(await page.getByRole('heading', { name: 'See', exact: true }).isVisible()).toBe(false);
    await summary.click();
    expect(await page.getByRole('list', { name: 'See' }).getByRole('listitem').count()).toBe(9);
    expect(await page.getByRole('list', { name: 'Change' }).getByRole('listitem').count()).toBe(7);
    const listed = await page.locator('details.scopes li small').allInnerTexts();
    expect(listed.map((s) => s.slice(1, -1)).sort()).toEqual([...SCOPES].sort());
    await page.screenshot({ path: shot('consent-16-open'), fullPage: true });
    await expectNoSidewaysScroll(page);

    await page.getByRole('button', { name: 'Allow' }).click();
    await page.waitForURL(`${REDIRECT}**`);
    expect(new URL(page.url()).searchParams.get('code')).toEqual(expect.any(String));
    await own.close();
  });

  it('a consent for one scope lists it in words, with no summary', async () => {
    const username = await longUser();
    const own = await browser.newContext({ viewport });
    const page = await consentPage(own, { name: 'Living Room TV', scopes: ['history:read'], username, shot: `phone-${viewport.width}-oauth-sign-in-1` });
    await page.screenshot({ path: shot('consent-1'), fullPage: true });
    await expectNoSidewaysScroll(page);
    await expectOnFirstScreen(page, 'Allow', viewport);
    expect(await page.locator('ul.scopes li').allInnerTexts()).toEqual(['watch-history reads (history:read)']);
    expect(await page.locator('ul.scope-groups, details').count()).toBe(0);
    await own.close();
  });

  it('connected apps: several long-named apps with many scopes, each Revoke button inside the screen', async () => {
    const username = await longUser();
    const own = await browser.newContext({ viewport });
    const names = [UNBROKEN_NAME, 'Living Room TV in the basement, the one behind the sofa that nobody ever turns off', 'Phone'];
    for (const name of names) await codeFlowTokens(app, own, { username, scopes: [...SCOPES], scope: SCOPES.join(' '), name });
    const page = await own.newPage();
    // Signed in already: the code flows signed this browser in, for the account pages too.
    await page.goto(`${app.url}/account/connected-apps`);
    await page.getByRole('heading', { name: 'Connected apps' }).waitFor();
    await page.screenshot({ path: shot('connected-apps'), fullPage: true });
    await expectNoSidewaysScroll(page);
    expect(await page.getByText(`Signed in as ${username}.`).isVisible()).toBe(true);

    // A table on the laptop; one block per app on the phone, its header row hidden for the cells' labels.
    const display = await page.locator('table').evaluate((t) => t.ownerDocument.defaultView!.getComputedStyle(t).display);
    expect(display).toBe(viewport.width < 640 ? 'block' : 'table');
    expect(await page.locator('thead').isVisible()).toBe(viewport.width >= 640);
    for (const name of names) {
      const revoke = page.getByRole('button', { name: `Revoke ${name}`, exact: true });
      await revoke.scrollIntoViewIfNeeded();
      const box = (await revoke.boundingBox())!;
      expect(box.x).toBeGreaterThanOrEqual(0);
      expect(box.x + box.width).toBeLessThanOrEqual(viewport.width);
      expect(await lineCount(revoke)).toBe(1);
    }
    expect(await page.locator('tbody tr').count()).toBe(3);
    for (let i = 0; i < 3; i += 1) expect(await page.locator('tbody tr').nth(i).locator('ul.scopes li').count()).toBe(16);
    await own.close();
  });

  it('the export page and its download fit the width', async () => {
    const username = await longUser();
    const own = await browser.newContext({ viewport, acceptDownloads: true });
    const page = await own.newPage();
    await page.goto(`${app.url}/account/export`);
    await signIn(page, username);
    await page.getByRole('heading', { name: 'Export your data' }).waitFor();
    await page.screenshot({ path: shot('account-export'), fullPage: true });
    await expectNoSidewaysScroll(page);
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download my data' }).click()]);
    const file = await download.path();
    const doc = JSON.parse(await fs.readFile(file, 'utf8')) as { format: string; profile: { username: string } };
    expect(doc.format).toBe(EXPORT_FORMAT);
    expect(doc.profile.username).toBe(username);
    await own.close();
  });

  it('device pages (code entry, confirmation, sign-in, consent, done) fit the width', async () => {
    const username = await longUser();
    const own = await browser.newContext({ viewport });
    const created = await makeApp(app, { name: UNBROKEN_NAME, scopes: ['profile:read', 'playback:write'] });
    const code = await postJson(`${app.url}/api/platform/v1/auth/device/code`, { client_id: created.client_id });
    expect(code.status).toBe(200);
    const page = await own.newPage();

    await page.goto(String(code.body.verification_uri));
    await page.getByLabel('Code shown on your device').waitFor();
    await page.screenshot({ path: shot('device-code'), fullPage: true });
    await expectNoSidewaysScroll(page);

    await page.goto(String(code.body.verification_uri_complete));
    await page.getByRole('heading', { name: 'Confirm the device' }).waitFor();
    await page.screenshot({ path: shot('device-confirm'), fullPage: true });
    await expectNoSidewaysScroll(page);
    await expectOnFirstScreen(page, 'Yes, it matches', viewport);
    await page.getByRole('button', { name: 'Yes, it matches' }).click();

    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await expectNoSidewaysScroll(page);
    await signIn(page, username);
    await page.getByRole('button', { name: 'Allow' }).waitFor();
    await expectNoSidewaysScroll(page);
    await expectOnFirstScreen(page, 'Allow', viewport);
    await page.getByRole('button', { name: 'Allow' }).click();

    await page.getByRole('heading', { name: 'Device connected' }).waitFor();
    await page.screenshot({ path: shot('device-connected'), fullPage: true });
    await expectNoSidewaysScroll(page);
    await own.close();
  });

  it("a public app's page: no word of a secret; redirect URIs wrap between their parts, never inside a word", async () => {
    const username = await longUser();
    const own = await browser.newContext({ viewport });
    const page = await own.newPage();
    await page.goto(`${app.url}/account`);
    await signIn(page, username);
    await page.getByText(`Signed in as ${username}.`).waitFor();
    await page.goto(`${app.url}/account/apps/new`);
    await page.getByLabel('Name').fill('Living Room TV');
    await page.getByLabel('Redirect URIs').fill(LONG_URIS.join('\n'));
    await page.getByLabel('Public').check();
    await page.getByRole('button', { name: 'Register app' }).click();
    await page.getByRole('heading', { name: 'Living Room TV' }).waitFor();
    await page.screenshot({ path: shot('developer-app-public'), fullPage: true });
    await expectNoSidewaysScroll(page);
    await expectAccessible(page);
    expect((await page.locator('main').innerText()).toLowerCase()).not.toContain('secret');

    const uris = page.locator('dd.uris code');
    expect(await uris.allInnerTexts()).toEqual(LONG_URIS);
    for (const uri of await uris.all()) {
      const rows = await lines(uri);
      expect(rows.join('')).toBe(await uri.innerText());
      // Each line after the first starts at a part of the URI: after `//` or a hyphen, or at `/ . ? # & = - _`.
      const atPart = (before: string, row: string) => before.endsWith('//') || before.endsWith('-') || '/.?#&=-_'.includes(row[0]!);
      for (const [i, row] of rows.entries()) if (i > 0) expect(atPart(rows[i - 1]!, row), rows.join(' | ')).toBe(true);
      if (viewport.width === 390 && (await uri.innerText()) === LONG_URIS[0]) expect(rows.length).toBeGreaterThan(1);
    }
    await own.close();
  });

    it('the error page fits the width', async () => {
    const page = await context.newPage();
    const url = new URL(`${app.url}/api/platform/v1/oauth/authorize`);
    url.search = new URLSearchParams({ client_id: 'x'.repeat(200), response_type: 'code', redirect_uri: REDIRECT }).toString();
    await page.goto(url.toString());
    await page.getByRole('heading', { name: 'Something went wrong' }).waitFor();
    await page.screenshot({ path: shot('error'), fullPage: true });
    await expectNoSidewaysScroll(page);
    await page.close();
  });
});

describe('/docs at 390 px', () => {
  it('the getting started registers apps at /account/apps, the CLI as the alternative, and passes axe', async () => {
    const context = await browser.newContext({ viewport: VIEWPORTS[0] });
    try {
      const page = await context.newPage();
      await page.goto(`${app.url}/docs`);
      await page.getByRole('link', { name: `${app.url}/account/apps` }).waitFor();
      const text = await page.locator('.swagger-ui .info').innerText();
      expect(text.indexOf(`${app.url}/account/apps`)).toBeLessThan(text.indexOf('app:create'));
      await page.screenshot({ path: screenshotPath('docs-getting-started-390'), fullPage: true });
      // The introduction is ours; the rest of the page is Swagger UI's, generated from the documents.
      await expectAccessible(page, '.swagger-ui .information-container');
    } finally {
      await context.close();
    }
  });
});
