// The account and developer-app forms have buckets, always on (this app runs with RATE_LIMITS=off, as
// the sign-in buckets are always on): a signed-in browser session looping a form meets 429 at exactly
// the table's limit plus one, with Retry-After and a page saying when to try again, and the form's work
// is not done. The review's attack: 40 secret rotations in a loop, each an argon2 hash, met no bucket.
// In services mode the counts are in Redis.
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_APPS_PER_USER } from '../src/core/apps/owned.ts';
import { db } from '../src/core/db/query-builder.ts';
import { limitById } from '../src/core/limits/table.ts';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { makeUser, PASSWORD, postAccountSignIn, sessionCookie } from './helpers/oauth.ts';

let app: TestApp;
const userIds = new Map<string, string>();

beforeAll(async () => {
  app = await startTestApp({ TRUST_PROXY: 'loopback' });
  for (const username of ['rotor', 'maker', 'toggler', 'revoker', 'exporter']) userIds.set(username, String((await makeUser(app, username)).id));
});
afterAll(() => app?.stop());

type Session = { cookie: string; csrf: string; userId: string };

/** Signs in at /account by form, as a browser does; the session cookie and the pages' CSRF token. */
async function signedIn(username: string): Promise<Session> {
  const res = await postAccountSignIn(app, username, PASSWORD);
  expect(res.status).toBe(303);
  const cookie = sessionCookie(res.headers);
  const hub = await (await fetch(`${app.url}/account`, { headers: { cookie } })).text();
  return { cookie, csrf: /name="csrf" value="([^"]+)"/.exec(hub)![1]!, userId: userIds.get(username)! };
}

type Answer = { status: number; headers: Headers; text: string };

async function postForm(path: string, fields: Record<string, string>, headers: Record<string, string> = {}): Promise<Answer> {
  const res = await fetch(`${app.url}${path}`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams(fields),
  });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

const post = (s: Session, path: string, fields: Record<string, string> = {}) => postForm(path, { csrf: s.csrf, ...fields }, { cookie: s.cookie });

/** A refusal as the pages answer one (docs/security.md, 'Account and developer-app forms have buckets'): 429 with Retry-After, and a page that says when to try again. */
function expectRefused(a: Answer, points: number, window: string): void {
  expect(a.status).toBe(429);
  expect(Number(a.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  expect(a.headers.get('x-ratelimit-limit')).toBe(String(points));
  expect(a.headers.get('x-ratelimit-remaining')).toBe('0');
  expect(a.headers.get('content-type')).toMatch(/^text\/html/);
  expect(a.text).toContain(`${points} times in the last ${window}, the most allowed.`);
  expect(a.text).toMatch(/Try again in \d+ (seconds?|minutes?)\./);
}

const registration = (name: string) => ({ name, redirect_uris: 'https://example.com/callback', type: 'confidential', 'scope:profile:read': 'on' });

/** Registers a confidential app through the form; its client id. */
async function register(s: Session, name: string): Promise<string> {
  const a = await post(s, '/account/apps', registration(name));
  expect(a.status).toBe(303);
  return decodeURIComponent(/^\/account\/apps\/([^?]+)\?registered=1$/.exec(a.headers.get('location')!)![1]!);
}

const stored = (clientId: string) =>
  db(app.db.orm.em.fork()).selectFrom('app').select(['client_secret_hash', 'secret_rotated_at', 'active']).where('client_id', '=', clientId).executeTakeFirst();

describe('developer-app forms', () => {
  it('secret rotation: 429 at exactly the limit plus one, and the refused one hashes nothing (the secret stays)', async () => {
    const { points } = limitById('app-secret');
    const s = await signedIn('rotor');
    const clientId = await register(s, 'Rotor');
    for (let i = 0; i < points; i++) {
      const a = await post(s, `/account/apps/${clientId}/rotate-secret`);
      expect(a.status, `rotation ${i + 1}`).toBe(303);
      expect(a.headers.get('location')).toBe(`/account/apps/${clientId}?rotated=1`);
    }
    const before = await stored(clientId);
    for (let i = 0; i < 3; i++) {
      const refused = await post(s, `/account/apps/${clientId}/rotate-secret`);
      expectRefused(refused, points, 'hour');
      expect(refused.text).toContain('rotated client secrets');
      expect(refused.headers.getSetCookie().some((c) => c.startsWith('mts_secret'))).toBe(false);
    }
    expect(await stored(clientId)).toEqual(before);
    // Counted per user: another user's rotations are their own.
    const other = await signedIn('maker');
    const theirs = await register(other, 'Maker first');
    expect((await post(other, `/account/apps/${theirs}/rotate-secret`)).status).toBe(303);
  });

  it('registration: 429 at exactly the limit plus one, below the 20-app cap (a delete-and-register loop), and no app is made', async () => {
    const { points } = limitById('app-create');
    const s = await signedIn('maker');
    const owned = async () =>
      (await db(app.db.orm.em.fork()).selectFrom('app').select('client_id').where('owner_id', '=', s.userId).orderBy('created_at').execute()).map((r) => r.client_id);
    let registered = (await owned()).length; // the one the previous test registered
    while (registered < points) {
      if ((await owned()).length >= MAX_APPS_PER_USER - 1) expect((await post(s, `/account/apps/${(await owned())[0]!}/delete`)).status).toBe(303);
      await register(s, `Maker ${registered++}`);
    }
    const apps = await owned();
    expect(apps.length).toBeLessThan(MAX_APPS_PER_USER);
    expectRefused(await post(s, '/account/apps', registration('One too many')), points, 'hour');
    expect(await owned()).toEqual(apps);
  });

  it('deactivate, activate and delete share one bucket: 429 at exactly the limit plus one, and the app is left as it was', async () => {
    const { points } = limitById('app-edit');
    const s = await signedIn('toggler');
    const clientId = await register(s, 'Toggler');
    for (let i = 0; i < points; i++) {
      const a = await post(s, `/account/apps/${clientId}/${i % 2 === 0 ? 'deactivate' : 'activate'}`);
      expect(a.status, `change ${i + 1}`).toBe(303);
    }
    const before = await stored(clientId);
    expectRefused(await post(s, `/account/apps/${clientId}/delete`), points, 'minute');
    expectRefused(await post(s, `/account/apps/${clientId}/${before!.active ? 'deactivate' : 'activate'}`), points, 'minute');
    expect(await stored(clientId)).toEqual(before);
  });
});

describe('account forms', () => {
  it('connected-app revocations and sign-outs share one bucket per user: the refused sign-out ends nothing', async () => {
    const { points } = limitById('account-forms');
    const s = await signedIn('revoker');
    for (let i = 0; i < points; i++) {
      const a = await post(s, '/account/connected-apps/app_nothing_connected_here/revoke');
      expect(a.status, `revocation ${i + 1}`).toBe(200);
      expect(a.text).toContain('That app was not connected.');
    }
    expectRefused(await post(s, '/account/connected-apps/app_nothing_connected_here/revoke'), points, 'minute');
    const out = await post(s, '/account/sign-out');
    expectRefused(out, points, 'minute');
    expect(out.headers.getSetCookie()).toEqual([]);
    // Still signed in: the session was not ended.
    expect(await (await fetch(`${app.url}/account/connected-apps`, { headers: { cookie: s.cookie } })).text()).toContain('revoker');
  });

  it('without a session the bucket is the address: 429 at exactly the limit plus one', async () => {
    const { points } = limitById('account-forms');
    const address = { 'x-forwarded-for': '198.18.9.1' };
    for (let i = 0; i < points; i++) expect((await postForm('/account/sign-out', {}, address)).status, `sign-out ${i + 1}`).toBe(303);
    expectRefused(await postForm('/account/sign-out', {}, address), points, 'minute');
    expect((await postForm('/account/sign-out', {}, { 'x-forwarded-for': '198.18.9.2' })).status).toBe(303);
  });

  it('the export download counts with request limits off: 429 at exactly the limit plus one', async () => {
    const { points } = limitById('export-page');
    const s = await signedIn('exporter');
    for (let i = 0; i < points; i++) expect((await post(s, '/account/export')).status, `export ${i + 1}`).toBe(200);
    const refused = await post(s, '/account/export');
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(refused.text).toContain(`You have downloaded your data ${points} times this hour.`);
  });
});

describe.runIf(process.env.REDIS_URL)('services mode', () => {
  it('counts the forms in Redis, shared by every instance', async () => {
    const redis = new Redis(process.env.REDIS_URL!);
    try {
      const s = await signedIn('rotor');
      const prefix = `test${process.pid}_${new URL(app.url).port}`;
      expect(Number(await redis.get(`${prefix}:rl:app-secret:${s.userId}`))).toBe(limitById('app-secret').points);
    } finally {
      redis.disconnect();
    }
  });
});
