// An app's webhook pages over HTTP, as a browser's forms post them: every POST needs the session's CSRF
// token (403, nothing changed); another user, another app's path, an unknown or misspelt id all answer
// the same 404 for every page and action; what the service refuses (a URL it may not post to, a kind the
// app's scopes rule out, the cap of webhooks) is a 400 with the form again and its reason, and nothing
// is stored; what was typed is escaped; the two buckets (`webhook-forms`, `webhook-page-test`) refuse at
// exactly their limit plus one, doing nothing. A deployment without WEBHOOK_ALLOW_PRIVATE refuses
// loopback and plain http in the form.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerOwnedApp } from '../src/core/apps/owned.ts';
import { db } from '../src/core/db/query-builder.ts';
import { limitById } from '../src/core/limits/table.ts';
import { WEBHOOKS_PER_APP } from '../src/core/webhooks/schemas.ts';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { accountSession, type Session } from './helpers/imports.ts';
import { startReceiver, type Receiver } from './helpers/webhook-receiver.ts';

let app: TestApp;
let receiver: Receiver;

beforeAll(async () => {
  app = await startTestApp({ WEBHOOK_ALLOW_PRIVATE: 'true' });
  receiver = await startReceiver();
});
afterAll(async () => {
  await app?.stop();
  await receiver?.close();
});

type Answer = { status: number; location: string | null; text: string; cookies: string[] };

async function answer(res: Response): Promise<Answer> {
  return { status: res.status, location: res.headers.get('location'), text: await res.text(), cookies: res.headers.getSetCookie() };
}
const get = async (s: Session | null, path: string, target = app) => answer(await fetch(`${target.url}${path}`, { redirect: 'manual', headers: s ? { cookie: s.cookie } : {} }));
const post = async (s: Session | null, path: string, form: Record<string, string>, target = app) =>
  answer(
    await fetch(`${target.url}${path}`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...(s ? { cookie: s.cookie } : {}) },
      body: new URLSearchParams(form),
    }),
  );

/** The test messages the receiver got. */
const tests = () => receiver.received.filter((r) => (JSON.parse(r.body) as { type: string }).type === 'webhook.test');

const errorOf = (a: Answer) => /<p class="error" role="alert">([^<]*)<\/p>/.exec(a.text)?.[1];

/** An app the user owns, allowed history and ratings (not trophies). */
async function ownApp(s: Session, target = app): Promise<string> {
  const created = await registerOwnedApp(target.db.orm.em.fork(), s.userId, {
    name: 'Hooked',
    redirectUris: ['https://hooked.example/callback'],
    scopes: ['history:read', 'ratings:read'],
    confidential: false,
  });
  return created.client_id;
}

const form = (s: Session, over: Record<string, string> = {}) => ({ csrf: s.csrf, url: receiver.url, 'kind:history': 'on', ...over });

/** Adds a webhook through the form; its page's path. */
async function added(s: Session, clientId: string, over: Record<string, string> = {}): Promise<string> {
  const a = await post(s, `/account/apps/${clientId}/webhooks`, form(s, over));
  expect(a.status, a.text).toBe(303);
  const path = a.location!.replace(/\?added=1$/, '');
  expect(path).toMatch(new RegExp(`^/account/apps/${clientId}/webhooks/[1-9][0-9]*$`));
  return path;
}

const stored = (clientId: string) =>
  db(app.db.orm.em.fork()).selectFrom('webhook_subscription').select(['id', 'url', 'kinds', 'secret', 'status']).where('client_id', '=', clientId).orderBy('id').execute();

let dora: Session;
let eve: Session;
let doraApp: string;
let doraHook: string;

beforeAll(async () => {
  [dora, eve] = [await accountSession(app, 'hook_dora'), await accountSession(app, 'hook_eve')];
  doraApp = await ownApp(dora);
  doraHook = await added(dora, doraApp);
});

/** Every action on a webhook, with a form it would accept. */
const actions = (s: Session, hook: string) => [
  [`${hook}/edit`, form(s)],
  [`${hook}/delete`, { csrf: s.csrf }],
  [`${hook}/resume`, { csrf: s.csrf }],
  [`${hook}/rotate-secret`, { csrf: s.csrf }],
  [`${hook}/test`, { csrf: s.csrf }],
] as const;

describe('CSRF and sessions', () => {
  it('refuses every POST without the form token, with another session\'s, or without a session (403), changing nothing', async () => {
    const before = await stored(doraApp);
    const sent = tests().length;
    for (const [path, fields] of [[`/account/apps/${doraApp}/webhooks`, form(dora)] as const, ...actions(dora, doraHook)]) {
      const { csrf: _, ...missing } = fields;
      expect((await post(dora, path, missing)).status, path).toBe(403);
      expect((await post(dora, path, { ...fields, csrf: eve.csrf })).status, path).toBe(403);
      expect((await post(null, path, fields)).status, path).toBe(403);
    }
    expect(await stored(doraApp)).toEqual(before);
    expect(tests()).toHaveLength(sent);
  });

  it('shows the sign-in form on the pages when signed out, never the webhook', async () => {
    for (const path of [doraHook, `${doraHook}/edit`, `${doraHook}/delete`, `${doraHook}/deliveries`, `/account/apps/${doraApp}/webhooks/new`]) {
      const a = await get(null, path);
      expect(a.status, path).toBe(200);
      expect(a.text).toContain('action="/account/sign-in"');
      expect(a.text).not.toContain(receiver.url);
    }
  });
});

describe('owners only', () => {
  it('answers 404 to another user for every page and action of the app\'s webhooks, and changes nothing', async () => {
    const before = await stored(doraApp);
    for (const path of [doraHook, `${doraHook}/edit`, `${doraHook}/delete`, `${doraHook}/deliveries`, `/account/apps/${doraApp}/webhooks/new`]) {
      const a = await get(eve, path);
      expect(a.status, path).toBe(404);
      expect(a.text).not.toContain(receiver.url);
    }
    expect((await post(eve, `/account/apps/${doraApp}/webhooks`, form(eve))).status).toBe(404);
    for (const [path, fields] of actions(eve, doraHook)) expect((await post(eve, path, fields)).status, path).toBe(404);
    expect(await stored(doraApp)).toEqual(before);
    expect((await get(dora, doraHook)).status).toBe(200);
  });

  it('answers 404 for a webhook of another app named under one\'s own app, and for ids that are none', async () => {
    const eveApp = await ownApp(eve);
    const id = doraHook.split('/').at(-1)!;
    const crossed = `/account/apps/${eveApp}/webhooks/${id}`;
    expect((await get(eve, crossed)).status).toBe(404);
    for (const [path, fields] of actions(eve, crossed)) expect((await post(eve, path, fields)).status, path).toBe(404);
    for (const bad of ['0', '01', 'abc', '1e3', '-1', '9'.repeat(16), '999999999']) {
      expect((await get(dora, `/account/apps/${doraApp}/webhooks/${bad}`)).status, bad).toBe(404);
      expect((await post(dora, `/account/apps/${doraApp}/webhooks/${bad}/test`, { csrf: dora.csrf })).status, bad).toBe(404);
    }
    expect((await get(dora, `${doraHook}/deliveries?before=abc`)).status).toBe(404);
    expect(await stored(doraApp)).toHaveLength(1);
  });
});

describe('the form', () => {
  it.each([
    ['no kind', { 'kind:history': '' }, 'Choose at least one kind of change to send.'],
    ['no URL', { url: '' }, 'URL: must be an absolute http(s) URL.'],
    ['not a URL', { url: 'hooks here please' }, 'URL: must be an absolute http(s) URL.'],
    ['another scheme', { url: 'ftp://127.0.0.1/hooks' }, 'URL: must be an http(s) URL.'],
    ['a password', { url: 'http://me:secret@127.0.0.1/hooks' }, 'URL: must not carry a user name or password.'],
    ['a fragment', { url: 'http://127.0.0.1/hooks#part' }, 'URL: must not carry a fragment.'],
    ['a URL over 2000 characters', { url: `http://127.0.0.1/${'a'.repeat(2000)}` }, 'URL: must be at most 2000 characters.'],
    ['a kind the app may not be granted', { 'kind:trophies': 'on' }, 'Kinds: trophies needs the trophies:read scope, which this app may not be granted.'],
  ])('refuses %s: 400, the form again with the reason and what was typed, nothing stored', async (_name, over, message) => {
    const s = await accountSession(app, `former_${Math.random().toString(36).slice(2, 8)}`);
    const clientId = await ownApp(s);
    const a = await post(s, `/account/apps/${clientId}/webhooks`, form(s, over));
    expect(a.status).toBe(400);
    expect(errorOf(a)).toBe(message.replace(/'/g, '&#39;'));
    expect(a.text).toContain('<form method="post"');
    expect(await stored(clientId)).toEqual([]);
    // The same refusal when changing a webhook; it is left as it was.
    const hook = await added(s, clientId);
    const before = await stored(clientId);
    const b = await post(s, `${hook}/edit`, form(s, over));
    expect(b.status).toBe(400);
    expect(errorOf(b)).toBe(message.replace(/'/g, '&#39;'));
    expect(await stored(clientId)).toEqual(before);
  });

  it('refuses the webhook past the cap in the form, and the app page says the cap is reached', async () => {
    const s = await accountSession(app, 'hook_capped');
    const clientId = await ownApp(s);
    for (let i = 0; i < WEBHOOKS_PER_APP; i++) await added(s, clientId, { url: `${receiver.url}/${i}` });
    const a = await post(s, `/account/apps/${clientId}/webhooks`, form(s, { url: `${receiver.url}/one-more` }));
    expect(a.status).toBe(400);
    expect(errorOf(a)).toBe(`An app may hold at most ${WEBHOOKS_PER_APP} webhooks: delete one it no longer uses first.`);
    expect(a.text).toContain(`${receiver.url}/one-more`);
    expect(await stored(clientId)).toHaveLength(WEBHOOKS_PER_APP);
    const page = await get(s, `/account/apps/${clientId}`);
    expect(page.text).toContain(`The app has ${WEBHOOKS_PER_APP} webhooks, the most an app may hold.`);
    expect(page.text).not.toContain('Add a webhook');
  });

  it('escapes what was typed, and stores only the URL as the service reads it', async () => {
    const typed = `${receiver.url}/"><script>alert(1)</script>`;
    const a = await post(dora, `/account/apps/${doraApp}/webhooks`, form(dora, { url: typed, 'kind:trophies': 'on' }));
    expect(a.status).toBe(400);
    expect(a.text).toContain('value="http://127.0.0.1');
    expect(a.text).toContain('/&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;"');
    expect(a.text).not.toContain('<script>');
    const hook = await added(dora, doraApp, { url: typed });
    const row = (await stored(doraApp)).at(-1)!;
    expect(row.url).toBe(`${receiver.url}/%22%3E%3Cscript%3Ealert(1)%3C/script%3E`);
    for (const path of [hook, `${hook}/edit`, `${hook}/delete`, `${hook}/deliveries`, `/account/apps/${doraApp}`]) {
      const html = (await get(dora, path)).text;
      expect(html, path).not.toContain('<script>');
    }
    expect((await post(dora, `${hook}/delete`, { csrf: dora.csrf })).location).toBe(`/account/apps/${doraApp}?webhook-deleted=1`);
  });

  it('hands the secret over in a cookie for the webhook\'s page alone, which the page clears', async () => {
    const a = await post(dora, `/account/apps/${doraApp}/webhooks`, form(dora));
    const path = a.location!.replace(/\?added=1$/, '');
    const cookie = a.cookies.find((c) => c.startsWith('mts_webhook_secret='))!;
    expect(cookie).toContain(`Path=${path};`);
    expect(cookie).toMatch(/HttpOnly; SameSite=Strict/);
    expect(cookie).not.toContain('whsec_');
    const shown = await answer(await fetch(`${app.url}${path}`, { headers: { cookie: `${dora.cookie}; ${cookie.split(';')[0]}` } }));
    const secret = /<code id="webhook-secret">([^<]+)<\/code>/.exec(shown.text)![1]!;
    expect((await stored(doraApp)).at(-1)!.secret).toBe(secret);
    expect(shown.cookies.some((c) => c.startsWith('mts_webhook_secret=;') && c.includes('Max-Age=0'))).toBe(true);
    // Another webhook's page does not take it.
    const other = await answer(await fetch(`${app.url}${doraHook}`, { headers: { cookie: `${dora.cookie}; ${cookie.split(';')[0]}` } }));
    expect(other.text).not.toContain(secret);
    await post(dora, `${path}/delete`, { csrf: dora.csrf });
  });
});

describe('buckets', () => {
  it('webhook-forms: 429 at exactly the limit plus one, and the refused rotation changes nothing', async () => {
    const { points } = limitById('webhook-forms');
    const s = await accountSession(app, 'hook_looper');
    const clientId = await ownApp(s);
    const hook = await added(s, clientId);
    for (let i = 1; i < points; i++) expect((await post(s, `${hook}/rotate-secret`, { csrf: s.csrf })).status, `rotation ${i + 1}`).toBe(303);
    const before = await stored(clientId);
    for (const [path, fields] of [[`/account/apps/${clientId}/webhooks`, form(s)] as const, ...actions(s, hook).filter(([p]) => !p.endsWith('/test'))]) {
      const a = await post(s, path, fields);
      expect(a.status, path).toBe(429);
      expect(a.text).toContain(`You have changed your apps’ webhooks ${points} times in the last minute, the most allowed.`);
      expect(a.cookies.some((c) => c.startsWith('mts_webhook_secret='))).toBe(false);
    }
    expect(await stored(clientId)).toEqual(before);
    // Test messages have a bucket of their own.
    expect((await post(s, `${hook}/test`, { csrf: s.csrf })).status).toBe(303);
  });

  it('webhook-page-test: 429 at exactly the limit plus one, and nothing more is sent', async () => {
    const { points } = limitById('webhook-page-test');
    const s = await accountSession(app, 'hook_tester');
    const clientId = await ownApp(s);
    const hook = await added(s, clientId, { url: `${receiver.url}/tester` });
    const sent = () => tests().filter((r) => r.body.includes(`"webhookId":"${hook.split('/').at(-1)}"`)).length;
    for (let i = 0; i < points; i++) expect((await post(s, `${hook}/test`, { csrf: s.csrf })).status, `test ${i + 1}`).toBe(303);
    expect(sent()).toBe(points);
    const a = await post(s, `${hook}/test`, { csrf: s.csrf });
    expect(a.status).toBe(429);
    expect(a.text).toContain(`You have sent test messages to your webhooks ${points} times in the last minute, the most allowed.`);
    expect(sent()).toBe(points);
  });
});

describe('a deployment that keeps webhooks off private addresses', () => {
  let strict: TestApp;
  beforeAll(async () => {
    strict = await startTestApp();
  });
  afterAll(() => strict?.stop());

  it.each([
    ['plain http', 'http://127.0.0.1/hooks', 'URL: must be https (the messages carry users&#39; data).'],
    ['a loopback address', 'https://127.0.0.1:9/hooks', 'URL: 127.0.0.1 resolves to 127.0.0.1 (loopback), which webhooks may not reach.'],
    ['a private address', 'https://10.1.2.3/hooks', 'URL: 10.1.2.3 resolves to 10.1.2.3 (private), which webhooks may not reach.'],
    ['the metadata service', 'https://169.254.169.254/latest', 'URL: 169.254.169.254 resolves to 169.254.169.254 (linkLocal), which webhooks may not reach.'],
  ])('refuses %s in the form', async (_name, url, message) => {
    const s = await accountSession(strict, `strict_${Math.random().toString(36).slice(2, 8)}`);
    const clientId = await ownApp(s, strict);
    const a = await post(s, `/account/apps/${clientId}/webhooks`, { csrf: s.csrf, url, 'kind:history': 'on' }, strict);
    expect(a.status).toBe(400);
    expect(errorOf(a)).toBe(message);
  });
});
