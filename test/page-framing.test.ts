// No HTML page of the service can be framed by another site (clickjacking). /docs sends the page headers
// every other page sends (X-Frame-Options DENY, CSP frame-ancestors 'none'), with the content policy
// Swagger UI needs; then every HTML page reachable over HTTP is walked, signed out and signed in (every
// GET route of the app with its parameters filled in, the provider's pages, Swagger UI's own pages, and
// every redirect and same-origin link from there), and each must carry both. In Chromium: Swagger UI
// still renders both documents without a policy violation, and a page of another origin cannot frame
// /docs, while it can frame a response without the headers (so the check sees a frame that loads).
import fs from 'node:fs';
import http from 'node:http';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OAUTH_ROUTES } from '../src/oauth/routes.ts';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { launchBrowser } from './helpers/browser.ts';
import { authorizationUrl, newCodeClient } from './helpers/code-flow.ts';
import { expressRoutes } from './helpers/routes.ts';
import { cookiesOf, postSignUp } from './helpers/sign-up.ts';

let app: TestApp;
let browser: Browser;

const DOCS_CSP = "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; script-src 'self'; frame-ancestors 'none'; base-uri 'none'";

beforeAll(async () => {
  app = await startTestApp();
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await app?.stop();
});

/** The paths of every GET route of the Express app, `:param`s filled with `value`. */
const getRoutes = (value: string) => expressRoutes(app).filter((r) => r.method === 'GET').map((r) => r.template.replace(/:\w+/g, value));

type Visited = { path: string; status: number; html: boolean; frameOptions: string | null; csp: string | null };

/**
 * Requests every seed and, from there, every same-origin redirect and `href` of an HTML page, once each,
 * carrying the cookies the answers set (a browser's session). Stops at `max` requests.
 */
async function walk(seeds: string[], cookie: string, max = 300): Promise<Visited[]> {
  const jar = new Map(cookie ? cookie.split('; ').map((c) => c.split('=', 2) as [string, string]) : []);
  const origin = new URL(app.url).origin;
  const queue = [...seeds];
  const seen = new Set<string>();
  const visited: Visited[] = [];
  const enqueue = (ref: string, base: string) => {
    const url = new URL(ref.replaceAll('&amp;', '&'), base);
    if (url.origin === origin && !seen.has(url.pathname + url.search)) queue.push(url.pathname + url.search);
  };
  while (queue.length > 0 && visited.length < max) {
    const p = queue.shift()!;
    if (seen.has(p)) continue;
    seen.add(p);
    const res = await fetch(`${origin}${p}`, { redirect: 'manual', headers: { cookie: [...jar].map(([k, v]) => `${k}=${v}`).join('; ') } });
    for (const c of res.headers.getSetCookie()) {
      const [pair] = c.split(';');
      const [k, v] = pair!.split('=', 2) as [string, string];
      if (/max-age=0|expires=thu, 01 jan 1970/i.test(c)) jar.delete(k);
      else jar.set(k, v);
    }
    const html = (res.headers.get('content-type') ?? '').startsWith('text/html');
    visited.push({ path: p, status: res.status, html, frameOptions: res.headers.get('x-frame-options'), csp: res.headers.get('content-security-policy') });
    const location = res.headers.get('location');
    if (location) enqueue(location, `${origin}${p}`);
    const body = await res.text();
    if (html) for (const [, ref] of body.matchAll(/href="([^"]+)"/g)) enqueue(ref!, `${origin}${p}`);
  }
  return visited;
}

const unframeable = (v: Visited) => v.frameOptions === 'DENY' && (v.csp ?? '').split(';').some((d) => d.trim() === "frame-ancestors 'none'");

describe('/docs', () => {
  it('sends the page headers every other page sends, with the content policy Swagger UI needs', async () => {
    const res = await fetch(`${app.url}/docs`);
    expect(res.status).toBe(200);
    expect({
      type: res.headers.get('content-type'),
      frame: res.headers.get('x-frame-options'),
      csp: res.headers.get('content-security-policy'),
      cache: res.headers.get('cache-control'),
      referrer: res.headers.get('referrer-policy'),
    }).toEqual({ type: 'text/html; charset=utf-8', frame: 'DENY', csp: DOCS_CSP, cache: 'no-store', referrer: 'no-referrer' });
    // Swagger UI's own pages under /docs/assets: the same; its scripts keep their long cache.
    for (const page of ['oauth2-redirect.html', 'index.html']) {
      const asset = await fetch(`${app.url}/docs/assets/${page}`);
      expect(asset.status).toBe(200);
      expect({ frame: asset.headers.get('x-frame-options'), csp: asset.headers.get('content-security-policy'), cache: asset.headers.get('cache-control') }).toEqual({
        frame: 'DENY',
        csp: DOCS_CSP,
        cache: 'no-store',
      });
    }
    const script = await fetch(`${app.url}/docs/assets/swagger-ui-bundle.js`);
    expect(script.headers.get('cache-control')).toBe('public, max-age=86400');
    await script.arrayBuffer();
  });
});

describe('every HTML page', () => {
  it('carries X-Frame-Options DENY and CSP frame-ancestors \'none\', signed out and signed in', async () => {
    const uiDir = path.dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
    const assets = fs.readdirSync(uiDir).filter((f) => f.endsWith('.html')).map((f) => `/docs/assets/${f}`);
    const codeClient = await newCodeClient(app);
    const { url: authorize } = await authorizationUrl(codeClient, 'profile:read');
    const seeds = [
      ...getRoutes('1'),
      ...getRoutes('not-a-real-id'),
      ...assets,
      OAUTH_ROUTES.code_verification,
      `${OAUTH_ROUTES.authorization}?client_id=unknown-app&response_type=code`,
      authorize.pathname + authorize.search,
      '/account/sign-up?return=/elsewhere',
    ];
    const signedOut = await walk(seeds, '');
    const signUp = await postSignUp(app, { username: 'framing_walker', password: 'a long enough password', confirm: 'a long enough password' });
    expect(signUp.status).toBe(303);
    const signedIn = await walk(seeds, cookiesOf(signUp.headers));

    const pages = [...signedOut, ...signedIn].filter((v) => v.html);
    expect(pages.filter((v) => !unframeable(v)).map((v) => `${v.status} ${v.path} (X-Frame-Options ${v.frameOptions}; CSP ${v.csp})`)).toEqual([]);
    // The walk reached the pages it must: the reference, Swagger's redirect page, sign-in and sign-up,
    // an authorization's sign-in page, the device page, the provider's error page, and the signed-in account pages.
    const reached = new Set(pages.map((v) => v.path.split('?')[0]!.replace(/\/oauth\/interaction\/[^/]+/, '/oauth/interaction/{uid}')));
    for (const p of ['/docs', '/docs/assets/oauth2-redirect.html', '/account', '/account/sign-up', '/oauth/interaction/{uid}', OAUTH_ROUTES.code_verification, OAUTH_ROUTES.authorization, '/account/apps', '/account/apps/new', '/account/export', '/account/import', '/account/connected-apps']) {
      expect(reached, p).toContain(p);
    }
    expect(pages.length).toBeGreaterThan(20);
  });
});

describe('in Chromium', () => {
  it('Swagger UI renders both documents under its policy, without a violation', async () => {
    const page = await browser.newPage();
    // Swagger UI's bundle parses and renders the platform document in seconds, tens of them on a busy machine.
    page.setDefaultTimeout(100_000);
    const violations: string[] = [];
    page.on('console', (m) => {
      if (/Content Security Policy|Refused to/i.test(m.text())) violations.push(m.text());
    });
    page.on('pageerror', (e) => violations.push(e.message));
    await page.goto(`${app.url}/docs`);
    await page.locator('.opblock').first().waitFor();
    expect(await page.locator('.opblock').count()).toBeGreaterThan(10);
    // The second document, through the definition selector.
    await page.locator('select#select').selectOption({ label: 'Public API' });
    await page.locator('.opblock-summary-path', { hasText: '/users/{username}' }).first().waitFor();
    expect(violations).toEqual([]);
    await page.close();
  });

  it('a page of another origin cannot frame /docs or the sign-in page; it can frame a response without the headers', async () => {
    const framer = http.createServer((req, res) => {
      const target = new URL(req.url ?? '/', 'http://x').searchParams.get('target') ?? '';
      res.setHeader('content-type', 'text/html');
      res.end(`<!doctype html><iframe id="f" src="${app.url}${target}"></iframe>`);
    });
    await new Promise<void>((resolve) => framer.listen(0, '127.0.0.1', resolve));
    const framerUrl = `http://localhost:${(framer.address() as { port: number }).port}`;
    try {
      /** Where the frame ended up once its load settled: the target's URL, or Chromium's error page when refused. */
      const frameUrl = async (target: string) => {
        const page = await browser.newPage();
        try {
          const loaded = page.waitForEvent('framenavigated', { predicate: (f) => f !== page.mainFrame() });
          await page.goto(`${framerUrl}/?target=${encodeURIComponent(target)}`);
          return (await loaded).url();
        } finally {
          await page.close();
        }
      };
      // The check sees a frame that loads: the OpenAPI document (JSON, no framing headers) frames.
      expect(await frameUrl('/api/public/v1/openapi.json')).toBe(`${app.url}/api/public/v1/openapi.json`);
      for (const target of ['/docs', '/account']) expect(await frameUrl(target), target).toBe('chrome-error://chromewebdata/');
    } finally {
      await new Promise((resolve) => framer.close(resolve));
    }
  });
});
