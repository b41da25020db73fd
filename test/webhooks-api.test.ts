// The webhooks of the token's own app over HTTP: the exact wire shapes, each error code, the owner rule,
// the destination guard as a subscriber meets it, the test message, secret rotation and the delivery log.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { freePort, startTestApp, type TestApp } from './helpers/app.ts';
import { jsonOfSize } from './helpers/http.ts';
import { makeApp, makeUser } from './helpers/oauth.ts';
import { ok, platform } from './helpers/seed.ts';
import { issueToken } from './helpers/tokens.ts';
import { startReceiver, type Receiver } from './helpers/webhook-receiver.ts';
import { connect, ownedApp, subscribe, WEBHOOK_TEST_ENV, type OwnedTestApp } from './helpers/webhooks.ts';

let open: TestApp;
let strict: TestApp;
let owned: OwnedTestApp;
let r: Receiver;

beforeAll(async () => {
  // `open` posts to loopback receivers; `strict` has the defaults (public https destinations only).
  [open, strict] = await Promise.all([startTestApp({ ...WEBHOOK_TEST_ENV, WEBHOOK_TIMEOUT_MS: '1000' }), startTestApp()]);
  owned = await ownedApp(open, 'api-owner');
  r = await startReceiver();
}, 120_000);

afterAll(async () => {
  await r?.close();
  await Promise.all([open?.stop(), strict?.stop()]);
});

const ISO = expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);

const call = (method: string, path: string, body?: unknown, token = owned.ownerToken, app = open) => platform(app, token, method, `/apps/me/webhooks${path}`, body);

describe('subscribing', () => {
  it('answers the webhook with its secret once; reads never show the secret', async () => {
    const res = await call('POST', '', { url: r.url, kinds: ['ratings', 'history', 'history'] });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^\d+$/),
      url: r.url,
      kinds: ['history', 'ratings'],
      status: 'active',
      pausedReason: null,
      pausedAt: null,
      failures: 0,
      nextAttemptAt: ISO,
      lastAttemptAt: null,
      lastSuccessAt: null,
      lastStatus: null,
      lastError: null,
      createdAt: ISO,
      updatedAt: ISO,
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/),
    });
    const { secret: _secret, ...shown } = res.body;
    expect(await ok(call('GET', `/${res.body.id}`))).toEqual(shown);
    const list = await ok(call('GET', ''));
    expect(list).toEqual({ items: expect.arrayContaining([shown]) });
    expect(JSON.stringify(list)).not.toContain('whsec_');
    expect((await call('DELETE', `/${res.body.id}`)).body).toEqual({ id: res.body.id, deleted: true });
    expect(await call('GET', `/${res.body.id}`)).toMatchObject({ status: 404, body: { error: 'not_found', message: 'Webhook not found' } });
    expect(await call('DELETE', `/${res.body.id}`)).toMatchObject({ status: 404, body: { error: 'not_found' } });
  });

  it('changes URL and kinds; delivery state stays', async () => {
    const hook = await subscribe(open, owned, r.url, ['history']);
    const changed = await ok(call('PATCH', `/${hook.id}`, { kinds: ['playback', 'authorization.revoked'] }));
    expect(changed).toMatchObject({ id: hook.id, url: r.url, kinds: ['playback', 'authorization.revoked'], status: 'active' });
    const moved = await ok(call('PATCH', `/${hook.id}`, { url: `${r.url}/v2` }));
    expect(moved).toMatchObject({ url: `${r.url}/v2`, kinds: ['playback', 'authorization.revoked'] });
    expect(await call('PATCH', `/${hook.id}`, {})).toMatchObject({ status: 400, body: { error: 'invalid_request', message: expect.stringContaining('give url, kinds or both') } });
    expect(await call('PATCH', '/999999', { kinds: ['history'] })).toMatchObject({ status: 404, body: { error: 'not_found' } });
    await ok(call('DELETE', `/${hook.id}`));
  });

  it.each([
    [{ url: 'x', kinds: [] }, 'kinds'],
    [{ url: 'https://hooks.example.test/', kinds: ['watchlist'] }, 'kinds'],
    [{ kinds: ['history'] }, 'url'],
    [{ url: 'https://hooks.example.test/', kinds: ['history'], secret: 'whsec_mine' }, 'secret'],
  ])('refuses %j: 400 naming %s', async (body, field) => {
    const res = await call('POST', '', body);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error: 'invalid_request', message: expect.stringContaining(field) });
  });

  it('refuses a kind whose read scope the app may never be granted', async () => {
    const narrow = await ownedApp(open, 'narrow-owner', ['profile:read', 'profile:write', 'history:read']);
    const res = await call('POST', '', { url: r.url, kinds: ['history', 'collection'] }, narrow.ownerToken);
    expect(res).toMatchObject({ status: 400, body: { error: 'invalid_request', message: 'kinds: collection needs the collection:read scope, which this app may not be granted' } });
    // authorization.revoked needs no scope.
    await ok(call('POST', '', { url: r.url, kinds: ['authorization.revoked'] }, narrow.ownerToken));
  });

  it('an app holds at most 10', async () => {
    const full = await ownedApp(open, 'full-owner');
    for (let i = 0; i < 10; i++) await ok(call('POST', '', { url: `${r.url}/${i}`, kinds: ['history'] }, full.ownerToken));
    expect(await call('POST', '', { url: r.url, kinds: ['history'] }, full.ownerToken)).toMatchObject({
      status: 400,
      body: { error: 'invalid_request', message: 'An app may hold at most 10 webhooks: delete one it no longer uses first' },
    });
    expect(((await ok(call('GET', '', undefined, full.ownerToken))).items as unknown[]).length).toBe(10);
  });

  it('a body over 8 KiB is 413', async () => {
    const res = await platform(open, owned.ownerToken, 'POST', '/apps/me/webhooks', JSON.parse(jsonOfSize(8 * 1024 + 1).toString()));
    expect(res).toMatchObject({ status: 413, body: { error: 'payload_too_large' } });
  });
});

describe('who may', () => {
  it('a token whose user does not own its app: 403 app_owner_only on every route', async () => {
    const user = await connect(open, owned, 'api-user', ['profile:read', 'profile:write']);
    const hook = await subscribe(open, owned, r.url, ['history']);
    const routes: Array<[string, string, unknown?]> = [
      ['GET', ''],
      ['POST', '', { url: r.url, kinds: ['history'] }],
      ['GET', `/${hook.id}`],
      ['PATCH', `/${hook.id}`, { kinds: ['ratings'] }],
      ['DELETE', `/${hook.id}`],
      ['POST', `/${hook.id}/test`],
      ['POST', `/${hook.id}/resume`],
      ['POST', `/${hook.id}/rotate-secret`],
      ['GET', `/${hook.id}/deliveries`],
    ];
    for (const [method, path, body] of routes) {
      const res = await call(method, path, body, user.token);
      expect(res.status, `${method} ${path}`).toBe(403);
      expect(res.body).toEqual({ error: 'app_owner_only', message: 'Only the app\'s owner manages its webhooks: this token\'s user does not own its app', request_id: expect.any(String) });
    }
    // An app made by the admin CLI has no owner: nobody manages its webhooks through the API.
    const cli = await makeApp(open);
    const someone = await makeUser(open, 'api-cli-user');
    expect((await call('GET', '', undefined, await issueToken(open, { userId: someone.id, clientId: cli.client_id, scope: 'profile:read' }))).body.error).toBe('app_owner_only');
  });

  it('another app\'s webhook is not found; reads need profile:read, changes profile:write', async () => {
    const other = await ownedApp(open, 'other-owner');
    const hook = await subscribe(open, other, r.url, ['history']);
    expect(await call('GET', `/${hook.id}`)).toMatchObject({ status: 404, body: { error: 'not_found' } });
    expect(await call('POST', `/${hook.id}/test`)).toMatchObject({ status: 404, body: { error: 'not_found' } });
    const readOnly = await issueToken(open, { userId: owned.ownerId, clientId: owned.clientId, scope: 'profile:read' });
    expect(await call('POST', '', { url: r.url, kinds: ['history'] }, readOnly)).toMatchObject({ status: 403, body: { error: 'insufficient_scope', required_scope: 'profile:write' } });
    const writeOnly = await issueToken(open, { userId: owned.ownerId, clientId: owned.clientId, scope: 'profile:write' });
    expect(await call('GET', '', undefined, writeOnly)).toMatchObject({ status: 403, body: { error: 'insufficient_scope', required_scope: 'profile:read' } });
    expect(await call('GET', '', undefined, '')).toMatchObject({ status: 401, body: { error: 'invalid_token' } });
  });
});

describe('destinations, without WEBHOOK_ALLOW_PRIVATE', () => {
  let mine: OwnedTestApp;
  beforeAll(async () => {
    mine = await ownedApp(strict, 'strict-owner');
  });

  it.each([
    ['https://127.0.0.1/hooks', 'url: 127.0.0.1 resolves to 127.0.0.1 (loopback), which webhooks may not reach'],
    ['https://[::1]/hooks', 'url: ::1 resolves to ::1 (loopback), which webhooks may not reach'],
    ['https://10.20.30.40/hooks', 'url: 10.20.30.40 resolves to 10.20.30.40 (private), which webhooks may not reach'],
    ['https://169.254.169.254/latest/meta-data/', 'url: 169.254.169.254 resolves to 169.254.169.254 (linkLocal), which webhooks may not reach'],
    ['https://[::ffff:127.0.0.1]/hooks', 'url: ::ffff:7f00:1 resolves to ::ffff:7f00:1 (loopback), which webhooks may not reach'],
    ['https://2130706433/hooks', 'url: 127.0.0.1 resolves to 127.0.0.1 (loopback), which webhooks may not reach'],
    ['https://0177.0.0.1/hooks', 'url: 127.0.0.1 resolves to 127.0.0.1 (loopback), which webhooks may not reach'],
    ['http://93.184.215.14/hooks', 'url: must be https (the messages carry users\' data)'],
  ])('%s: 400', async (url, message) => {
    const res = await call('POST', '', { url, kinds: ['history'] }, mine.ownerToken, strict);
    expect(res).toMatchObject({ status: 400, body: { error: 'invalid_request', message } });
  });

  it('a name that resolves to loopback is refused too', async () => {
    const res = await call('POST', '', { url: 'https://localhost:8443/hooks', kinds: ['history'] }, mine.ownerToken, strict);
    expect(res.status).toBe(400);
    expect(res.body.message).toMatch(/^url: localhost resolves to (127\.0\.0\.1|::1) \(loopback\), which webhooks may not reach$/);
    expect(((await ok(call('GET', '', undefined, mine.ownerToken, strict))).items as unknown[]).length).toBe(0);
  });
});

describe('the test message, secret rotation and the delivery log', () => {
  it('posts webhook.test signed with the secret and logs the attempt, whatever the receiver answers', async () => {
    const hook = await subscribe(open, owned, r.url, ['history']);
    r.answer(200);
    const sent = await ok(call('POST', `/${hook.id}/test`));
    expect(sent).toEqual({ delivered: true, messageId: expect.stringMatching(/^msg_test_[0-9a-f-]{36}$/), status: 200, error: null, durationMs: expect.any(Number) });
    const got = r.received.find((x) => x.headers['webhook-id'] === sent.messageId)!;
    expect(new Webhook(hook.secret).verify(got.body, got.headers as Record<string, string>)).toEqual({ type: 'webhook.test', timestamp: ISO, data: { webhookId: hook.id } });

    r.answer(500);
    expect(await ok(call('POST', `/${hook.id}/test`))).toMatchObject({ delivered: false, status: 500, error: 'HTTP 500' });
    r.answer(302);
    expect(await ok(call('POST', `/${hook.id}/test`))).toMatchObject({ delivered: false, status: 302, error: 'HTTP 302: redirects are not followed' });
    r.answer(200);

    const log = await ok(call('GET', `/${hook.id}/deliveries`));
    expect(log.nextBefore).toBeNull();
    expect(log.items).toEqual([
      { id: expect.stringMatching(/^\d+$/), messageId: expect.any(String), type: 'webhook.test', userId: null, attempt: 1, status: 302, error: 'HTTP 302: redirects are not followed', durationMs: expect.any(Number), at: ISO },
      { id: expect.any(String), messageId: expect.any(String), type: 'webhook.test', userId: null, attempt: 1, status: 500, error: 'HTTP 500', durationMs: expect.any(Number), at: ISO },
      { id: expect.any(String), messageId: sent.messageId, type: 'webhook.test', userId: null, attempt: 1, status: 200, error: null, durationMs: expect.any(Number), at: ISO },
    ]);
    const first = await ok(call('GET', `/${hook.id}/deliveries?limit=2`));
    expect((first.items as unknown[]).length).toBe(2);
    const rest = await ok(call('GET', `/${hook.id}/deliveries?limit=2&before=${String(first.nextBefore)}`));
    expect(rest).toEqual({ items: [expect.objectContaining({ messageId: sent.messageId })], nextBefore: null });
    expect(await call('GET', `/${hook.id}/deliveries?limit=101`)).toMatchObject({ status: 400, body: { error: 'invalid_request' } });
    // A test message changes nothing of the webhook's own delivery state.
    expect(await ok(call('GET', `/${hook.id}`))).toMatchObject({ failures: 0, lastAttemptAt: null, status: 'active' });
  });

  it('a receiver that does not answer, or is not there, is a failed attempt with the reason', async () => {
    const hung = http.createServer(() => {});
    await new Promise<void>((resolve) => hung.listen(0, '127.0.0.1', resolve));
    try {
      const slow = await subscribe(open, owned, `http://127.0.0.1:${(hung.address() as AddressInfo).port}/`, ['history']);
      expect(await ok(call('POST', `/${slow.id}/test`))).toMatchObject({ delivered: false, status: null, error: 'no answer within 1 s' });
    } finally {
      hung.closeAllConnections();
      hung.close();
    }
    const gone = await subscribe(open, owned, `http://127.0.0.1:${await freePort()}/`, ['history']);
    expect(await ok(call('POST', `/${gone.id}/test`))).toMatchObject({ delivered: false, status: null, error: 'connection failed (ECONNREFUSED)' });
  });

  it('a rotated secret is shown once; for a day both secrets sign every message', async () => {
    const hook = await subscribe(open, owned, r.url, ['history']);
    const rotated = await ok(call('POST', `/${hook.id}/rotate-secret`));
    expect(rotated).toMatchObject({ id: hook.id, secret: expect.stringMatching(/^whsec_/) });
    expect(rotated.secret).not.toBe(hook.secret);
    const sent = await ok(call('POST', `/${hook.id}/test`));
    const got = r.received.find((x) => x.headers['webhook-id'] === sent.messageId)!;
    expect(String(got.headers['webhook-signature'])).toMatch(/^v1,\S+ v1,\S+$/);
    for (const secret of [String(rotated.secret), hook.secret]) expect(() => new Webhook(secret).verify(got.body, got.headers as Record<string, string>)).not.toThrow();
  });

  it('resume answers the webhook, active and due now', async () => {
    const hook = await subscribe(open, owned, r.url, ['history']);
    expect(await ok(call('POST', `/${hook.id}/resume`))).toMatchObject({ id: hook.id, status: 'active', failures: 0, pausedReason: null });
    expect(await call('POST', '/999999/resume')).toMatchObject({ status: 404, body: { error: 'not_found' } });
  });
});
