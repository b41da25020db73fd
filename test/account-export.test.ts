// /account/export in real Chromium: linked from the /account hub, signing in comes back to it, and its
// button downloads the same document GET /me/export gives official apps, as an attachment. Over plain
// HTTP: the download needs the session's CSRF token (403 without it, nothing sent), and an eleventh
// download within the hour is refused (429) with the page and the rate-limit headers.
import fs from 'node:fs/promises';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXPORT_FORMAT, exportDocument } from '../src/core/export/schema.ts';
import { limitById } from '../src/core/limits/table.ts';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { launchBrowser, screenshotPath } from './helpers/browser.ts';
import { addSpecial, exporter, exportOf, seedLibrary } from './helpers/export-seed.ts';
import { PASSWORD, postAccountSignIn, signIn } from './helpers/oauth.ts';
import { seedCatalog, type Member } from './helpers/seed.ts';
import { cookiesOf } from './helpers/sign-up.ts';

let app: TestApp;
let browser: Browser;
let alice: Member;

beforeAll(async () => {
  app = await startTestApp({ RATE_LIMITS: 'on' });
  await seedCatalog(app, { shows: 3 });
  await addSpecial(app);
  alice = await exporter(app, 'alice_page_export');
  await seedLibrary(app, alice);
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await app?.stop();
});

/** A signed-in session's cookies and the CSRF token of its export page. */
async function session(username: string): Promise<{ cookie: string; csrf: string }> {
  const signedIn = await postAccountSignIn(app, username, PASSWORD);
  const cookie = cookiesOf(signedIn.headers);
  const html = await (await fetch(`${app.url}/account/export`, { headers: { cookie } })).text();
  const csrf = /name="csrf" value="([^"]+)"/.exec(html)?.[1];
  expect(csrf).toBeDefined();
  return { cookie, csrf: csrf! };
}

const download = (s: { cookie: string }, csrf: string) =>
  fetch(`${app.url}/account/export`, { method: 'POST', headers: { cookie: s.cookie, 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ csrf }).toString() });

describe('/account/export', () => {
  it('is linked from the hub, comes back after sign-in and downloads the full export', async () => {
    const context = await browser.newContext({ acceptDownloads: true });
    const page = await context.newPage();
    await page.goto(`${app.url}/account/export`);
    await signIn(page, alice.username);
    await page.getByRole('heading', { name: 'Export your data' }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/account/export');
    await page.goto(`${app.url}/account`);
    await page.getByRole('link', { name: 'Export your data' }).click();
    await page.getByRole('heading', { name: 'Export your data' }).waitFor();
    await page.screenshot({ path: screenshotPath('account-export'), fullPage: true });
    const [file] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download my data' }).click()]);
    expect(file.suggestedFilename()).toMatch(new RegExp(`^${EXPORT_FORMAT}-alice_page_export-\\d{4}-\\d{2}-\\d{2}\\.json$`));
    const doc = exportDocument.parse(JSON.parse(await fs.readFile((await file.path())!, 'utf8')));
    const api = exportDocument.parse((await exportOf(app, alice.token)).body);
    expect({ ...doc, exported_at: api.exported_at }).toEqual(api);
    await context.close();
  });

  it('needs the session\'s CSRF token; counts downloads in a bucket of 10 an hour per user', async () => {
    const m = await exporter(app, 'carol_page_export');
    const s = await session(m.username);
    const forged = await download(s, 'not-the-token');
    expect(forged.status).toBe(403);
    expect(await forged.text()).toContain('Your session has expired');
    const points = limitById('export-page').points;
    for (let i = 0; i < points; i++) {
      const ok = await download(s, s.csrf);
      expect(ok.status).toBe(200);
      expect(ok.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect(ok.headers.get('content-disposition')).toMatch(/^attachment; filename="/);
      expect(ok.headers.get('x-ratelimit-remaining')).toBe(String(points - i - 1));
      expect(exportDocument.parse(await ok.json()).profile.username).toBe(m.username);
    }
    const refused = await download(s, s.csrf);
    expect(refused.status).toBe(429);
    expect(refused.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(refused.headers.get('x-ratelimit-limit')).toBe(String(points));
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(await refused.text()).toContain(`You have downloaded your data ${points} times this hour`);
  });

  it('shows the sign-in form to a visitor without a session, and refuses the download with 403', async () => {
    const page = await (await fetch(`${app.url}/account/export`)).text();
    expect(page).toContain('name="password"');
    const res = await download({ cookie: '' }, 'x');
    expect(res.status).toBe(403);
  });
});
