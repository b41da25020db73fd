// How the service serves the first-party web app: its page at each app URL, never cached, with a CSP
// that allows this origin only (and the image base for images); its hashed files cached for good; the
// first load's JavaScript within 200 KB gzip; and, signed out, the home page and the header's search in
// Chromium at a phone's and a desk's size.
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectAccessible } from './helpers/axe.ts';
import { request } from './helpers/http.ts';
import { expectGoodPage, openApp, startWebApp, VIEWPORTS, type WebApp } from './helpers/web-app.ts';

let web: WebApp;
beforeAll(async () => {
  web = await startWebApp();
});
afterAll(async () => {
  await web?.stop();
});

const DIST = path.resolve(import.meta.dirname, '../packages/web/dist');

describe('the app page', () => {
  it.each(['/', '/history', '/title/movie/129', '/lists/7', '/u/somebody', '/auth/callback?code=x&state=y', '/settings'])('%s answers the app, never cached, under a strict CSP', async (p) => {
    const res = await request(web.app, p);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('x-frame-options')).toBe('DENY');
    expect(res.headers.get('content-security-policy')).toBe(
      "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data: http://127.0.0.1:9; connect-src 'self'; manifest-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
    );
    expect(res.text).toContain('<div id="root"></div>');
    expect(res.text).toContain('<meta name="image-base" content="http://127.0.0.1:9/images">');
  });

  it('leaves other paths to the API (its 404 envelope), and the account pages where they are', async () => {
    const missing = await request(web.app, '/no-such-page');
    expect(missing.status).toBe(404);
    expect(JSON.parse(missing.text)).toMatchObject({ error: 'not_found' });
    const account = await request(web.app, '/account');
    expect(account.status).toBe(200);
    expect(account.text).toContain('Sign in');
  });
});

describe('the hashed files', () => {
  const scripts = (html: string) => [...html.matchAll(/(?:src|href)="(\/assets\/[^"]+\.(?:js|css))"/g)].map((m) => m[1]!);

  it('are served with immutable caching; an unknown one is a 404', async () => {
    const html = (await request(web.app, '/')).text;
    const files = scripts(html);
    expect(files.length).toBeGreaterThan(0);
    for (const file of files) {
      expect(file).toMatch(/-[A-Za-z0-9_-]{8}\.(js|css)$/);
      const res = await request(web.app, file);
      expect(res.status, file).toBe(200);
      expect(res.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    }
    const stale = await request(web.app, '/assets/index-00000000.js');
    expect(stale.status).toBe(404);
    expect(JSON.parse(stale.text)).toMatchObject({ error: 'not_found', message: 'No such file in this build of the web app' });
  });

  it('are sent compressed as the browser asks: Brotli, else gzip, else as they are', async () => {
    const html = (await request(web.app, '/')).text;
    const file = scripts(html).find((f) => f.endsWith('.js'))!;
    const raw = fs.readFileSync(path.join(DIST, file));
    const get = async (acceptEncoding: string) => {
      const res = await fetch(`${web.app.url}${file}`, { headers: { 'accept-encoding': acceptEncoding } });
      // fetch decodes what it is sent; the header says what was sent.
      return { encoding: res.headers.get('content-encoding'), body: Buffer.from(await res.arrayBuffer()), type: res.headers.get('content-type'), vary: res.headers.get('vary'), cache: res.headers.get('cache-control') };
    };
    for (const [accept, encoding] of [['gzip, deflate, br', 'br'], ['gzip', 'gzip'], ['br;q=0, gzip;q=1', 'gzip'], ['identity', null], ['', null]] as const) {
      const res = await get(accept);
      expect(res.encoding, accept).toBe(encoding);
      expect(res.body.equals(raw), accept).toBe(true);
      expect(res.type).toBe('text/javascript; charset=utf-8');
      expect(res.vary).toBe('Accept-Encoding');
      expect(res.cache).toBe('public, max-age=31536000, immutable');
    }
    expect((await request(web.app, `${file}.br`)).status).toBe(200);
    expect((await request(web.app, '/assets/..%2f..%2fpackage.json', { headers: { 'accept-encoding': 'br' } })).status).toBe(404);
  });

  it('first load: the JavaScript the page loads is at most 200 KB gzip', async () => {
    const html = fs.readFileSync(path.join(DIST, 'index.html'), 'utf8');
    const js = scripts(html).filter((f) => f.endsWith('.js'));
    const gzipped = js.reduce((sum, f) => sum + zlib.gzipSync(fs.readFileSync(path.join(DIST, f))).length, 0);
    expect(gzipped).toBeLessThanOrEqual(200 * 1024);
  });
});

describe.each(VIEWPORTS)('signed out at %o', (viewport) => {
  it('home shows trending titles and a way to sign in; search finds a misspelt title by keyboard', async () => {
    const { context, page } = await openApp(web, viewport);
    try {
      await expect.poll(() => page.getByRole('heading', { name: 'Track what you watch' }).count(), { timeout: 30_000 }).toBe(1);
      await expect.poll(() => page.getByRole('list', { name: 'Trending' }).count(), { timeout: 30_000 }).toBe(1);
      await expectGoodPage(page);

      await page.keyboard.press('/');
      const search = page.getByRole('combobox', { name: 'Search' });
      await expect.poll(() => search.evaluate((el) => el === el.ownerDocument.activeElement), { timeout: 30_000 }).toBe(true);
      await page.keyboard.type('spirted awey');
      const first = page.getByRole('listbox', { name: 'Search results' }).getByRole('option').first();
      await expect.poll(() => first.textContent(), { timeout: 30_000 }).toContain('Spirited Away');
      await expectAccessible(page);
      await page.keyboard.press('ArrowDown');
      await expect.poll(() => first.getAttribute('aria-selected'), { timeout: 30_000 }).toBe('true');
      await page.keyboard.press('Enter');
      await page.waitForURL((u) => u.pathname === '/title/movie/129');
    } finally {
      await context.close();
    }
  });
});
