// An open GET /playback/events stream ends when its access token stops standing, whoever stops it: the
// token revoked (RFC 7009, the access token or the refresh token of its grant), the app revoked at
// /account/connected-apps, deactivated by the operator's CLI (another process) or deleted by its owner,
// and, in services mode, a revocation made through another instance. The stream ends with a last
// comment (the watch re-checks tokens every second; how soon is a figure, not a test's timer), a
// reconnection with the same token is 401, and the user's next event reaches only the streams still standing (a control stream of another app). A
// stream opened with a ?ticket= is bound to the token that asked for it. A password set by the operator
// ends the user's streams too; the token stands (grants are kept) and the reconnection opens.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { runAdmin } from './helpers/cli.ts';
import { servicesMode } from './helpers/db.ts';
import { expectError } from './helpers/envelope.ts';
import { makeApp, makeUser, PASSWORD, postAccountSignIn, postForm, postJson } from './helpers/oauth.ts';
import { platform, seedCatalog, SPIRITED_AWAY } from './helpers/seed.ts';
import { issueRefreshToken, issueToken } from './helpers/tokens.ts';
import { until } from './helpers/wait.ts';

const SCOPES = 'playback:write playback:read events:read';

let app: TestApp;

beforeAll(async () => {
  app = await startTestApp();
  await seedCatalog(app, { shows: 1 });
});
afterAll(() => app?.stop());

/** An open stream read as raw text: what came so far, and its end (the server closed it). */
type Stream = { text(): string; ended: Promise<number> };

async function openStream(target: TestApp, auth: { token: string } | { ticket: string }): Promise<Stream> {
  const url = `${target.url}/api/platform/v1/playback/events${'ticket' in auth ? `?ticket=${auth.ticket}` : ''}`;
  const res = await fetch(url, { headers: 'token' in auth ? { authorization: `Bearer ${auth.token}` } : {} });
  expect(res.status, await (res.status === 200 ? '' : res.clone().text())).toBe(200);
  let text = '';
  let connected!: () => void;
  const isConnected = new Promise<void>((resolve) => (connected = resolve));
  const decoder = new TextDecoder();
  const reader = res.body!.getReader();
  const ended = (async () => {
    for (;;) {
      const { done, value } = await reader.read().catch(() => ({ done: true, value: undefined }));
      if (done) return Date.now();
      text += decoder.decode(value, { stream: true });
      if (text.includes(': connected\n')) connected();
    }
  })();
  await isConnected;
  return { text: () => text, ended };
}

/** A reconnection with the same credentials: its answer. */
async function reconnect(token: string) {
  const res = await fetch(`${app.url}/api/platform/v1/playback/events`, { headers: { authorization: `Bearer ${token}` } });
  if (res.status === 200) {
    const text = await readUntil(res, ': connected\n');
    return { status: 200, body: {}, headers: res.headers, text };
  }
  return { status: res.status, body: (await res.json()) as Record<string, unknown>, headers: res.headers, text: '' };
}

async function readUntil(res: Response, marker: string): Promise<string> {
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let text = '';
  while (!text.includes(marker)) {
    const { done, value } = await reader.read();
    if (done) break;
    text += decoder.decode(value, { stream: true });
  }
  await reader.cancel();
  return text;
}

/**
 * An access and a refresh token of one grant, from the token endpoint (a refresh), which also records the
 * grant as a connected app, as the code and device flows do.
 */
async function tokensFromEndpoint(userId: string, clientId: string): Promise<{ token: string; refresh: string }> {
  const first = await issueRefreshToken(app, { userId, clientId, scope: SCOPES });
  const refreshed = await postJson(`${app.url}/api/platform/v1/auth/refresh`, { client_id: clientId, refresh_token: first });
  expect(refreshed.status, JSON.stringify(refreshed.body)).toBe(200);
  return { token: String(refreshed.body.access_token), refresh: String(refreshed.body.refresh_token) };
}

/** A user with a control stream (another app's token, never revoked) that sees the user's events. */
async function viewer(target: TestApp, username: string) {
  const user = await makeUser(target, username);
  const controlApp = await makeApp(target);
  const control = await issueToken(target, { userId: user.id, clientId: controlApp.client_id, scope: SCOPES });
  return { user, control, controlStream: await openStream(target, { token: control }) };
}

let seq = 0;
/** One playback event of the user (through the control token); resolves once the control stream has it. */
async function nextEvent(target: TestApp, control: string, controlStream: Stream): Promise<string> {
  const sessionId = `revoke-${++seq}`;
  const res = await platform(target, control, 'POST', '/playback/start', {
    event_id: sessionId,
    event_created_at: Date.now() - 60_000 + seq,
    media_type: 'movie',
    title: 'Spirited Away',
    movie_db_id: SPIRITED_AWAY,
    playback_session_id: sessionId,
    progress: 0.1,
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  await until(`event ${sessionId} on the control stream`, () => controlStream.text().includes(`"playback_session_id":"${sessionId}"`));
  return sessionId;
}

/** When the stream ended; null when it was still open 30 s on (so a stream that stays open fails the test, not its timeout). */
const endOf = (stream: Stream) => Promise.race([stream.ended, new Promise<null>((r) => setTimeout(() => r(null), 30_000))]);

/**
 * The stream ends with the comment `reason` as its last line, and the
 * user's next event (seen by the control stream) is not in it. How soon is not asserted: on a loaded
 * machine a timer measures the machine, and the next event staying out is what the revocation promises.
 */
async function expectEnded(stream: Stream, reason: string, who: { control: string; controlStream: Stream }) {
  const endedAt = await endOf(stream);
  expect(endedAt, 'the stream ended').not.toBeNull();
  expect(stream.text().endsWith(`: ${reason}\n\n`)).toBe(true);
  const later = await nextEvent(app, who.control, who.controlStream);
  expect(stream.text()).not.toContain(later);
}

describe('a revocation ends the open streams of the token', () => {
  it('revoking the access token (POST /oauth/revoke)', async () => {
    const v = await viewer(app, 'rev_access');
    const client = await makeApp(app);
    const token = await issueToken(app, { userId: v.user.id, clientId: client.client_id, scope: SCOPES });
    const stream = await openStream(app, { token });
    const seen = await nextEvent(app, v.control, v.controlStream);
    await until('the event before the revocation', () => stream.text().includes(seen));

    expect((await postForm(`${app.url}/api/platform/v1/oauth/revoke`, { client_id: client.client_id, token })).status).toBe(200);
    await expectEnded(stream, 'access revoked', v);
    expectError(await reconnect(token), 401, 'invalid_token');
  });

  it('revoking the refresh token of its grant (the provider drops the grant and its access tokens)', async () => {
    const v = await viewer(app, 'rev_refresh');
    const client = await makeApp(app);
    const { token, refresh } = await tokensFromEndpoint(v.user.id, client.client_id);
    const stream = await openStream(app, { token });

    const revoke = await postForm(`${app.url}/api/platform/v1/oauth/revoke`, { client_id: client.client_id, token: refresh, token_type_hint: 'refresh_token' });
    expect(revoke.status).toBe(200);
    await expectEnded(stream, 'access revoked', v);
    expectError(await reconnect(token), 401, 'invalid_token');
  });

  it('revoking the app at /account/connected-apps', async () => {
    const v = await viewer(app, 'rev_connected');
    const client = await makeApp(app);
    const { token } = await tokensFromEndpoint(v.user.id, client.client_id);
    const stream = await openStream(app, { token });
    const signIn = await postAccountSignIn(app, 'rev_connected', PASSWORD);
    const cookie = signIn.headers.getSetCookie().find((c) => c.startsWith('mts_account='))!.split(';')[0]!;
    const page = await (await fetch(`${app.url}/account/connected-apps`, { headers: { cookie } })).text();
    const csrf = /name="csrf" value="([^"]+)"/.exec(page)![1]!;

    const revoke = await fetch(`${app.url}/account/connected-apps/${client.client_id}/revoke`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie },
      body: new URLSearchParams({ csrf }),
    });
    expect(revoke.status).toBe(303);
    await expectEnded(stream, 'access revoked', v);
    expectError(await reconnect(token), 401, 'invalid_token');
  });

  it('deactivating the app with the admin CLI (another process)', async () => {
    const v = await viewer(app, 'rev_cli');
    const client = await makeApp(app);
    const token = await issueToken(app, { userId: v.user.id, clientId: client.client_id, scope: SCOPES });
    const stream = await openStream(app, { token });

    const run = await runAdmin(app, 'app:deactivate', client.client_id);
    expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: '' });
    await expectEnded(stream, 'access revoked', v);
    expectError(await reconnect(token), 401, 'invalid_token');
  });

  it('deleting the app by its owner at /account/apps', async () => {
    const v = await viewer(app, 'rev_owner');
    const signIn = await postAccountSignIn(app, 'rev_owner', PASSWORD);
    const cookie = signIn.headers.getSetCookie().find((c) => c.startsWith('mts_account='))!.split(';')[0]!;
    const hub = await (await fetch(`${app.url}/account`, { headers: { cookie } })).text();
    const csrf = /name="csrf" value="([^"]+)"/.exec(hub)![1]!;
    const post = (path: string, form: Record<string, string>) =>
      fetch(`${app.url}${path}`, { method: 'POST', redirect: 'manual', headers: { 'content-type': 'application/x-www-form-urlencoded', cookie }, body: new URLSearchParams({ csrf, ...form }) });
    const registered = await post('/account/apps', {
      name: 'My scrobbler',
      redirect_uris: 'https://app.example/callback',
      type: 'public',
      'scope:playback:write': 'on',
      'scope:playback:read': 'on',
      'scope:events:read': 'on',
    });
    expect(registered.status, await registered.clone().text()).toBe(303);
    const clientId = /^\/account\/apps\/(app_[A-Za-z0-9_-]+)\?registered=1$/.exec(registered.headers.get('location')!)![1]!;
    const token = await issueToken(app, { userId: v.user.id, clientId, scope: SCOPES });
    const stream = await openStream(app, { token });

    const deleted = await post(`/account/apps/${clientId}/delete`, {});
    expect(deleted.status).toBe(303);
    await expectEnded(stream, 'access revoked', v);
    expectError(await reconnect(token), 401, 'invalid_token');
  });

  it('a stream opened with a ticket ends with the token that asked for the ticket', async () => {
    const v = await viewer(app, 'rev_ticket');
    const client = await makeApp(app);
    const token = await issueToken(app, { userId: v.user.id, clientId: client.client_id, scope: SCOPES });
    const ticket = await platform(app, token, 'POST', '/playback/events/ticket');
    expect(ticket.status, JSON.stringify(ticket.body)).toBe(200);
    const stream = await openStream(app, { ticket: String(ticket.body.ticket) });

    expect((await postForm(`${app.url}/api/platform/v1/oauth/revoke`, { client_id: client.client_id, token })).status).toBe(200);
    await expectEnded(stream, 'access revoked', v);
    expectError(await platform(app, token, 'POST', '/playback/events/ticket'), 401, 'invalid_token');
  });
});

describe('a password set by the operator', () => {
  it('ends the user\'s open streams; the token stands (grants are kept) and the client reconnects', async () => {
    const user = await makeUser(app, 'rev_password');
    const client = await makeApp(app);
    const token = await issueToken(app, { userId: user.id, clientId: client.client_id, scope: SCOPES });
    const stream = await openStream(app, { token });

    const run = await runAdmin(app, 'user:set-password', '--username', 'rev_password', '--password', 'a brand new password');
    expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: '' });
    const endedAt = await endOf(stream);
    expect(endedAt, 'the stream ended').not.toBeNull();
    expect(stream.text().endsWith(': signed out: the password was set; reconnect\n\n')).toBe(true);
    const again = await reconnect(token);
    expect(again.status).toBe(200);
    expect(again.text).toContain(': connected\n');
  });
});

describe.skipIf(!servicesMode)('several instances', () => {
  let other: TestApp;
  beforeAll(async () => {
    other = await startTestApp({}, { sameDatabaseAs: app });
  });
  afterAll(() => other?.stop());

  it('a stream open on one instance ends when the token is revoked through another', async () => {
    const v = await viewer(app, 'rev_fleet');
    const client = await makeApp(app);
    const token = await issueToken(app, { userId: v.user.id, clientId: client.client_id, scope: SCOPES });
    const stream = await openStream(app, { token });
    const ticket = await platform(other, token, 'POST', '/playback/events/ticket');
    const onOther = await openStream(other, { ticket: String(ticket.body.ticket) });

    expect((await postForm(`${other.url}/api/platform/v1/oauth/revoke`, { client_id: client.client_id, token })).status).toBe(200);
    await expectEnded(stream, 'access revoked', v);
    await expectEnded(onOther, 'access revoked', v);
    expectError(await reconnect(token), 401, 'invalid_token');
  });
});
