// Developer apps over HTTP, as a browser's forms post them: every POST needs the session's CSRF token
// (403), another user's app is 404 for its pages and every action, the form's limits are clear errors,
// names are escaped, nothing in the form can make an app official, and APP_REGISTRATION=closed hides the
// link and answers 404 for every /account/apps page and action.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_APPS_PER_USER } from '../src/core/apps/owned.ts';
import { findApp } from '../src/core/apps/service.ts';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { makeApp, makeUser, postAccountSignIn, sessionCookie } from './helpers/oauth.ts';

let app: TestApp;

type Session = { cookie: string; csrf: string; userId: string };

/** Signs in through the /account form; the CSRF token is read from the hub page, as a browser has it. */
async function session(target: TestApp, username: string): Promise<Session> {
  const user = await makeUser(target, username);
  const res = await postAccountSignIn(target, username, 'correct horse battery');
  const cookie = sessionCookie(res.headers);
  const hub = await (await fetch(`${target.url}/account`, { headers: { cookie } })).text();
  return { cookie, csrf: /name="csrf" value="([^"]+)"/.exec(hub)![1]!, userId: user.id };
}

const get = (s: Session | null, path: string, target = app) => fetch(`${target.url}${path}`, { redirect: 'manual', headers: s ? { cookie: s.cookie } : {} });
const post = (s: Session | null, path: string, form: Record<string, string>, target = app) =>
  fetch(`${target.url}${path}`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...(s ? { cookie: s.cookie } : {}) },
    body: new URLSearchParams(form),
  });

const form = (s: Session, over: Record<string, string> = {}) => ({
  csrf: s.csrf,
  name: 'Test app',
  redirect_uris: 'https://app.example/callback',
  type: 'public',
  'scope:profile:read': 'on',
  ...over,
});

/** Registers through the form; returns the new client id from the redirect. */
async function registered(s: Session, over: Record<string, string> = {}): Promise<string> {
  const res = await post(s, '/account/apps', form(s, over));
  expect(res.status, await res.clone().text()).toBe(303);
  return /^\/account\/apps\/(app_[A-Za-z0-9_-]+)\?registered=1$/.exec(res.headers.get('location')!)![1]!;
}

const errorOf = async (res: Response) => /<p class="error" role="alert">([^<]*)<\/p>/.exec(await res.text())?.[1];

let dora: Session;
let eve: Session;

beforeAll(async () => {
  app = await startTestApp();
  [dora, eve] = [await session(app, 'dora'), await session(app, 'eve')];
});
afterAll(() => app?.stop());

describe('CSRF and sessions', () => {
  it('refuses every POST without the form token or with a wrong one (403), changing nothing', async () => {
    const id = await registered(dora, { type: 'confidential' });
    for (const path of ['/account/apps', `/account/apps/${id}/rotate-secret`, `/account/apps/${id}/deactivate`, `/account/apps/${id}/activate`, `/account/apps/${id}/delete`]) {
      const fields: Record<string, string> = path === '/account/apps' ? form(dora, { name: 'Forged' }) : {};
      const missing = Object.fromEntries(Object.entries(fields).filter(([k]) => k !== 'csrf'));
      expect((await post(dora, path, missing)).status, path).toBe(403);
      expect((await post(dora, path, { ...fields, csrf: eve.csrf })).status, path).toBe(403);
      expect((await post(null, path, { ...fields, csrf: dora.csrf })).status, path).toBe(403);
    }
    const stored = (await findApp(app.db.orm.em.fork(), id))!;
    expect(stored).toMatchObject({ active: true, secret_rotated_at: null });
    expect(await (await get(dora, '/account/apps')).text()).not.toContain('Forged');
  });

  it('shows the sign-in form on the pages when signed out', async () => {
    const res = await get(null, '/account/apps');
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain('action="/account/sign-in"');
    expect(html).toContain('name="next" value="/account/apps"');
  });

  it('returns to the page named by next after signing in, and only to an account page', async () => {
    const login = async (next: string) => {
      const page = await fetch(`${app.url}/account`);
      const cookie = page.headers.getSetCookie().map((c) => c.split(';')[0]).join('; ');
      const nonce = /name="nonce" value="([^"]+)"/.exec(await page.text())![1]!;
      const res = await fetch(`${app.url}/account/sign-in`, {
        method: 'POST',
        redirect: 'manual',
        headers: { 'content-type': 'application/x-www-form-urlencoded', cookie },
        body: new URLSearchParams({ nonce, username: 'dora', password: 'correct horse battery', next }),
      });
      expect(res.status).toBe(303);
      return res.headers.get('location');
    };
    expect(await login('/account/apps')).toBe('/account/apps');
    expect(await login('//evil.example/account')).toBe('/account/connected-apps');
    expect(await login('https://evil.example/')).toBe('/account/connected-apps');
    expect(await login('/account/../oauth')).toBe('/account/connected-apps');
  });
});

describe('owners only', () => {
  it('answers 404 to another user for the app pages and every action, and lists only their own apps', async () => {
    const id = await registered(dora, { name: 'Dora only', type: 'confidential' });
    expect((await get(eve, `/account/apps/${id}`)).status).toBe(404);
    expect((await get(eve, `/account/apps/${id}/delete`)).status).toBe(404);
    for (const action of ['rotate-secret', 'deactivate', 'activate', 'delete']) {
      expect((await post(eve, `/account/apps/${id}/${action}`, { csrf: eve.csrf })).status, action).toBe(404);
    }
    expect(await (await get(eve, '/account/apps')).text()).not.toContain('Dora only');
    expect((await findApp(app.db.orm.em.fork(), id))!).toMatchObject({ active: true, secret_rotated_at: null, owner_id: dora.userId });
    expect((await get(dora, `/account/apps/${id}`)).status).toBe(200);
  });

  it('answers 404 for apps the admin CLI made and for unknown client ids', async () => {
    const cli = await makeApp(app, { confidential: true });
    expect((await get(dora, `/account/apps/${cli.client_id}`)).status).toBe(404);
    expect((await post(dora, `/account/apps/${cli.client_id}/delete`, { csrf: dora.csrf })).status).toBe(404);
    expect((await post(dora, '/account/apps/app_unknown/deactivate', { csrf: dora.csrf })).status).toBe(404);
    expect(await findApp(app.db.orm.em.fork(), cli.client_id)).not.toBeNull();
  });
});

describe('the registration form', () => {
  it('never makes an official app, whatever the form carries', async () => {
    const id = await registered(dora, { official: 'true', owner: eve.userId });
    expect((await findApp(app.db.orm.em.fork(), id))!).toMatchObject({ official: false, owner_id: dora.userId, confidential: false, client_secret_hash: null });
    expect(await (await get(dora, '/account/apps/new')).text()).not.toMatch(/official/i);
  });

  it('escapes the name everywhere it is shown', async () => {
    const name = '<script>alert(1)</script><img src=x onerror=alert(2)>';
    const id = await registered(dora, { name });
    for (const path of ['/account/apps', `/account/apps/${id}`, `/account/apps/${id}/delete`]) {
      const html = await (await get(dora, path)).text();
      expect(html, path).toContain('&lt;script&gt;alert(1)&lt;/script&gt;&lt;img src=x onerror=alert(2)&gt;');
      expect(html, path).not.toContain('<script>');
      expect(html, path).not.toContain('<img');
    }
  });

  it.each([
    ['no name', { name: '  ' }, 'App name must be 1 to 100 characters without control characters.'],
    ['a name over 100 characters', { name: 'x'.repeat(101) }, 'App name must be 1 to 100 characters without control characters.'],
    ['no redirect URI', { redirect_uris: '\n \n' }, 'At least one redirect URI is required.'],
    ['21 redirect URIs', { redirect_uris: Array.from({ length: 21 }, (_, i) => `https://app.example/cb${i}`).join('\n') }, 'At most 20 redirect URIs.'],
    ['http off loopback', { redirect_uris: 'http://app.example/cb' }, 'Redirect URI &quot;http://app.example/cb&quot; may use http only on a loopback host (127.0.0.1, [::1], localhost).'],
    ['no scope', { 'scope:profile:read': '' }, 'Choose at least one scope.'],
    ['no type', { type: 'official' }, 'Choose whether the app is public or confidential.'],
  ])('refuses %s with a form error (400) and keeps what was typed', async (_label, over, message) => {
    const res = await post(dora, '/account/apps', form(dora, { name: 'Kept name', ...over }));
    expect(res.status).toBe(400);
    const html = await res.clone().text();
    expect(await errorOf(res)).toBe(message);
    if (!('name' in over)) expect(html).toContain('value="Kept name"');
  });

  it(`caps an account at ${MAX_APPS_PER_USER} apps with a clear form error`, async () => {
    const frank = await session(app, 'frank');
    for (let i = 0; i < MAX_APPS_PER_USER; i++) await registered(frank, { name: `App ${i}` });
    const res = await post(frank, '/account/apps', form(frank, { name: 'One too many' }));
    expect(res.status).toBe(400);
    expect(await errorOf(res)).toBe(`An account may register at most ${MAX_APPS_PER_USER} apps: delete one you no longer use first.`);
    const list = await (await get(frank, '/account/apps')).text();
    expect(list).not.toContain('One too many');
    expect(list).not.toContain('href="/account/apps/new"');
  });

  it('refuses to rotate a public app (400)', async () => {
    const id = await registered(dora);
    expect((await post(dora, `/account/apps/${id}/rotate-secret`, { csrf: dora.csrf })).status).toBe(400);
  });
});

describe('the account page', () => {
  it('links connected apps and the developer apps, with sign-out', async () => {
    const html = await (await get(dora, '/account')).text();
    expect(html).toContain('href="/account/connected-apps"');
    expect(html).toContain('href="/account/apps"');
    expect(html).toContain('action="/account/sign-out"');
  });
});

describe('APP_REGISTRATION=closed', () => {
  let closed: TestApp;
  let s: Session;
  beforeAll(async () => {
    closed = await startTestApp({ APP_REGISTRATION: 'closed' });
    s = await session(closed, 'dora');
  });
  afterAll(() => closed?.stop());

  it('hides the link on /account and answers 404 to every page and action', async () => {
    const hub = await (await get(s, '/account', closed)).text();
    expect(hub).toContain('href="/account/connected-apps"');
    expect(hub).not.toContain('/account/apps');
    const cli = await makeApp(closed, { confidential: true });
    for (const path of ['/account/apps', '/account/apps/new', `/account/apps/${cli.client_id}`, `/account/apps/${cli.client_id}/delete`]) {
      expect((await get(s, path, closed)).status, path).toBe(404);
      expect((await get(null, path, closed)).status, path).toBe(404);
    }
    expect((await post(s, '/account/apps', form(s), closed)).status).toBe(404);
    for (const action of ['rotate-secret', 'deactivate', 'activate', 'delete']) {
      expect((await post(s, `/account/apps/${cli.client_id}/${action}`, { csrf: s.csrf }, closed)).status, action).toBe(404);
    }
    expect(await findApp(closed.db.orm.em.fork(), cli.client_id)).toMatchObject({ active: true, secret_rotated_at: null });
  });
});
