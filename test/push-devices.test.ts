// Push devices over real HTTP: the Push device shape (never the token), official apps only, scopes,
// each boundary of the fields, register-or-refresh by deviceId, a token moving between devices and
// users, removal, the per-user cap, and nothing in the change feed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordGrantUse } from '../src/core/connected-apps/service.ts';
import { query } from '../src/core/db/sql.ts';
import { DEVICES_PER_USER } from '../src/core/devices/schemas.ts';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { changesOf } from './helpers/change-log.ts';
import { runAdmin } from './helpers/cli.ts';
import { expectError } from './helpers/envelope.ts';
import { member, platform, tokenWith, type Member } from './helpers/seed.ts';

let app: TestApp;
let alice: Member;
const RW = ['notifications:read', 'notifications:write'];
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const DEVICE_KEYS = ['createdAt', 'deviceId', 'deviceName', 'enabled', 'environment', 'id', 'lastSeenAt', 'platform', 'provider'];

beforeAll(async () => {
  app = await startTestApp();
  alice = await member(app, 'alice_push', RW, { official: true });
});
afterAll(() => app?.stop());

let seq = 0;
const token = (length = 64) => `${String(++seq).padStart(6, '0')}${'f'.repeat(length - 6)}`;
/** The documented body (docs/decisions.md, Push devices): platform and provider left out (this 64-hex token makes them ios/apns). */
const device = (over: Record<string, unknown> = {}) => ({
  token: token(),
  environment: 'production',
  deviceId: `device-${++seq}`,
  deviceName: 'Alice\'s iPhone',
  ...over,
});
const register = (body: unknown, t = alice.token) => platform(app, t, 'POST', '/me/push-devices', body);
const list = async (t = alice.token) => {
  const res = await platform(app, t, 'GET', '/me/push-devices');
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expect(Object.keys(res.body)).toEqual(['items']);
  return res.body.items as Array<Record<string, unknown>>;
};
/** What is stored: the token is kept (pushes need it), never shown. */
const tokensOf = async (userId: string) =>
  (await query<{ token: string; device_id: string }>(app.db.orm.em.fork(), { text: `select token, device_id from push_device where user_id = $1 order by id`, params: [userId] })).map((r) => [r.device_id, r.token]);

describe('POST /me/push-devices', () => {
  it('registers a device and answers exactly the Push device shape, without the token', async () => {
    const body = device();
    const res = await register(body);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(DEVICE_KEYS);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^\d+$/),
      platform: 'ios',
      provider: 'apns',
      environment: 'production',
      deviceId: body.deviceId,
      deviceName: 'Alice\'s iPhone',
      enabled: true,
      lastSeenAt: expect.stringMatching(ISO),
      createdAt: expect.stringMatching(ISO),
    });
    expect(JSON.stringify(res.body)).not.toContain(body.token);
    expect((await list()).find((d) => d.id === res.body.id)).toEqual(res.body);
  });

  it('refreshes the registration of a deviceId: same id and createdAt, new token, environment and lastSeenAt; name kept when not sent', async () => {
    const first = (await register(device({ deviceId: 'refresh-me', environment: 'development' }))).body;
    await new Promise((r) => setTimeout(r, 20));
    const newToken = token();
    const { deviceName: _name, ...withoutName } = device({ deviceId: 'refresh-me', token: newToken, platform: 'android', provider: 'fcm' });
    const again = await register(withoutName);
    expect(again.status).toBe(200);
    expect(again.body).toEqual({ ...first, platform: 'android', provider: 'fcm', environment: 'production', lastSeenAt: expect.stringMatching(ISO) });
    expect(Date.parse(again.body.lastSeenAt as string)).toBeGreaterThan(Date.parse(first.lastSeenAt as string));
    expect((await list()).filter((d) => d.deviceId === 'refresh-me')).toHaveLength(1);
    expect((await tokensOf(alice.userId)).filter(([id]) => id === 'refresh-me')).toEqual([['refresh-me', newToken]]);
    const renamed = await register({ ...withoutName, deviceName: 'Pixel' });
    expect(renamed.body).toMatchObject({ id: first.id, deviceName: 'Pixel' });
  });

  it('a token registered again under another deviceId leaves one live registration', async () => {
    const shared = token();
    const a = (await register(device({ token: shared, deviceId: 'old-install' }))).body;
    const b = (await register(device({ token: shared, deviceId: 'new-install' }))).body;
    expect(b.id).not.toBe(a.id);
    const ids = (await list()).map((d) => d.deviceId);
    expect(ids).toContain('new-install');
    expect(ids).not.toContain('old-install');
  });

  it('a token moving to another user (account switch on the phone) leaves the first user without it', async () => {
    const bob = await member(app, 'bob_push', RW, { official: true });
    const shared = token();
    await register(device({ token: shared, deviceId: 'family-ipad' }));
    const res = await register(device({ token: shared, deviceId: 'family-ipad' }), bob.token);
    expect(res.status).toBe(200);
    expect((await list()).map((d) => d.deviceId)).not.toContain('family-ipad');
    expect((await list(bob.token)).map((d) => d.deviceId)).toEqual(['family-ipad']);
    expect((await tokensOf(alice.userId)).map(([, t]) => t)).not.toContain(shared);
  });

  it('token: 20 to 512 printable characters', async () => {
    expect((await register(device({ token: token(20) }))).status).toBe(200);
    expect((await register(device({ token: token(512) }))).status).toBe(200);
    expectError(await register(device({ token: token(19) })), 400, 'invalid_request');
    expectError(await register(device({ token: token(513) })), 400, 'invalid_request');
    expectError(await register(device({ token: `${token(30)} with space` })), 400, 'invalid_request');
  });

  it('deviceId: 1 to 160 characters', async () => {
    const at160 = `d${String(++seq).padStart(6, '0')}`.padEnd(160, 'x');
    expect((await register(device({ deviceId: at160 }))).body.deviceId).toBe(at160);
    expect((await register(device({ deviceId: '📱'.repeat(160) }))).status).toBe(200);
    expectError(await register(device({ deviceId: `${at160}y` })), 400, 'invalid_request');
    expectError(await register(device({ deviceId: '' })), 400, 'invalid_request');
  });

  it('deviceName: at most 100 characters; absent is ""', async () => {
    expect((await register(device({ deviceName: 'n'.repeat(100) }))).body.deviceName).toBe('n'.repeat(100));
    expect((await register(device({ deviceName: 'é'.repeat(100) }))).status).toBe(200);
    expectError(await register(device({ deviceName: 'n'.repeat(101) })), 400, 'invalid_request');
    expectError(await register(device({ deviceName: 'bad\nname' })), 400, 'invalid_request');
    const { deviceName: _n, ...nameless } = device();
    expect((await register(nameless)).body.deviceName).toBe('');
  });

  it('platform ios | android, provider apns | fcm | expo (apns only on ios), environment development | production', async () => {
    for (const [platformName, provider] of [['ios', 'apns'], ['ios', 'fcm'], ['ios', 'expo'], ['android', 'fcm'], ['android', 'expo']]) {
      const res = await register(device({ platform: platformName, provider }));
      expect(res.status, `${platformName}/${provider}`).toBe(200);
      expect(res.body).toMatchObject({ platform: platformName, provider });
    }
    expect((await register(device({ environment: 'development' }))).body.environment).toBe('development');
    expectError(await register(device({ platform: 'android', provider: 'apns' })), 400, 'invalid_request');
    expectError(await register(device({ platform: 'web' })), 400, 'invalid_request');
    expectError(await register(device({ provider: 'webpush' })), 400, 'invalid_request');
    expectError(await register(device({ environment: 'staging' })), 400, 'invalid_request');
  });

  it('infers platform and provider from the token when both are absent', async () => {
    const unique = () => String(++seq).padStart(6, '0');
    const cases: Array<[string, string, string]> = [
      [`${unique()}${'ab12'.repeat(14)}cd`, 'ios', 'apns'],
      [`${unique()}${'AB12'.repeat(14)}CD`, 'ios', 'apns'],
      [`ExponentPushToken[${unique()}xxxxxxxxxxxxxxxx]`, 'android', 'expo'],
      [`ExpoPushToken[${unique()}yyyyyyyyyyyyyyyy]`, 'android', 'expo'],
      [`${unique()}dGVzdA:APA91bHun4MxP5egoKMwt2KZFBaFUH-1RYqx`, 'android', 'fcm'],
      [`${unique()}${'f'.repeat(57)}`, 'android', 'fcm'],
      [`${unique()}${'f'.repeat(59)}`, 'android', 'fcm'],
      [`${unique()}${'g'.repeat(58)}`, 'android', 'fcm'],
      [`ExponentPushToken[]${unique()}zzzzzzzz`, 'android', 'fcm'],
    ];
    for (const [t, platformName, provider] of cases) {
      const body = device({ token: t });
      const res = await register(body);
      expect(res.status, t).toBe(200);
      expect(res.body, t).toEqual({
        id: expect.stringMatching(/^\d+$/), platform: platformName, provider, environment: 'production', deviceId: body.deviceId, deviceName: body.deviceName,
        enabled: true, lastSeenAt: expect.stringMatching(ISO), createdAt: expect.stringMatching(ISO),
      });
    }
  });

  it('keeps what is sent, inferring only the other one; apns with android is refused, sent or inferred', async () => {
    const expo = () => `ExponentPushToken[${String(++seq).padStart(6, '0')}xxxxxxxxxxxxxxxx]`;
    const cases: Array<[Record<string, unknown>, string, string]> = [
      [{ token: expo(), platform: 'ios' }, 'ios', 'expo'],
      [{ platform: 'ios', provider: 'fcm' }, 'ios', 'fcm'],
      [{ provider: 'fcm' }, 'android', 'fcm'],
      [{ provider: 'expo' }, 'android', 'expo'],
      [{ token: expo(), provider: 'fcm' }, 'android', 'fcm'],
      [{ platform: 'ios' }, 'ios', 'apns'],
      [{ token: expo(), provider: 'apns' }, 'ios', 'apns'],
    ];
    for (const [over, platformName, provider] of cases) {
      const res = await register(device(over));
      expect(res.status, JSON.stringify(over)).toBe(200);
      expect(res.body, JSON.stringify(over)).toMatchObject({ platform: platformName, provider });
    }
    expectError(await register(device({ platform: 'android' })), 400, 'invalid_request');
    expectError(await register(device({ platform: 'android', provider: 'apns', token: expo() })), 400, 'invalid_request');
  });

  it('refuses missing and unknown fields', async () => {
    for (const field of ['token', 'environment', 'deviceId']) {
      const body: Record<string, unknown> = device();
      delete body[field];
      expectError(await register(body), 400, 'invalid_request');
    }
    expectError(await register(device({ enabled: false })), 400, 'invalid_request');
    expectError(await register(device({ userId: 'someone' })), 400, 'invalid_request');
  });

  it(`keeps at most ${DEVICES_PER_USER} registrations per user, removing the one seen least recently`, async () => {
    const carol = await member(app, 'carol_push', RW, { official: true });
    const first = (await register(device({ deviceId: 'carol-0' }), carol.token)).body;
    for (let i = 1; i < DEVICES_PER_USER; i++) await register(device({ deviceId: `carol-${i}` }), carol.token);
    // Seen again: carol-0 is now the most recent, carol-1 the least.
    expect((await register(device({ deviceId: 'carol-0' }), carol.token)).body.id).toBe(first.id);
    await register(device({ deviceId: 'carol-new' }), carol.token);
    const ids = (await list(carol.token)).map((d) => d.deviceId);
    expect(ids).toHaveLength(DEVICES_PER_USER);
    expect(ids[0]).toBe('carol-new');
    expect(ids).toContain('carol-0');
    expect(ids).not.toContain('carol-1');
  });
});

describe('official apps and scopes', () => {
  it('answers apps not marked official 403 first_party_only, on every push-device route', async () => {
    const dev = await member(app, 'dev_push', RW);
    expectError(await register(device(), dev.token), 403, 'first_party_only');
    expectError(await platform(app, dev.token, 'GET', '/me/push-devices'), 403, 'first_party_only');
    expectError(await platform(app, dev.token, 'DELETE', '/me/push-devices/1'), 403, 'first_party_only');
  });

  it('needs notifications:write to register and remove, notifications:read to list', async () => {
    const readOnly = await tokenWith(app, alice, ['notifications:read']);
    expectError(await register(device(), readOnly), 403, 'insufficient_scope', { required_scope: 'notifications:write' });
    expectError(await platform(app, readOnly, 'DELETE', '/me/push-devices/1'), 403, 'insufficient_scope', { required_scope: 'notifications:write' });
    const writeOnly = await tokenWith(app, alice, ['notifications:write']);
    expectError(await platform(app, writeOnly, 'GET', '/me/push-devices'), 403, 'insufficient_scope', { required_scope: 'notifications:read' });
    expectError(await platform(app, null, 'POST', '/me/push-devices', device()), 401, 'invalid_token');
  });
});

describe('DELETE /me/push-devices/{id}', () => {
  it('removes the user\'s own registration by id; another user\'s or an unknown id is 404', async () => {
    const dan = await member(app, 'dan_push', RW, { official: true });
    const mine = (await register(device({ deviceId: 'dan-phone' }), dan.token)).body;
    const alices = (await register(device())).body;
    expectError(await platform(app, dan.token, 'DELETE', `/me/push-devices/${alices.id}`), 404, 'not_found');
    const res = await platform(app, dan.token, 'DELETE', `/me/push-devices/${mine.id}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id: mine.id, deleted: true });
    expect(await list(dan.token)).toEqual([]);
    expectError(await platform(app, dan.token, 'DELETE', `/me/push-devices/${mine.id}`), 404, 'not_found');
    expectError(await platform(app, dan.token, 'DELETE', '/me/push-devices/abc'), 400, 'invalid_request');
    expect((await list()).map((d) => d.id)).toContain(alices.id);
  });

  it('records nothing in the change feed', async () => {
    expect(await changesOf(app, alice.userId)).toEqual([]);
  });
});

describe('an app that loses its access loses its push devices', () => {
  const deviceIdsOf = async (userId: string) => (await tokensOf(userId)).map(([deviceId]) => deviceId);

  it('disconnecting the app (DELETE /me/connected-apps/{clientId}) removes the user\'s registrations of it', async () => {
    const erin = await member(app, 'erin_push', RW, { official: true });
    expect((await register(device({ deviceId: 'erin-phone' }), erin.token)).status).toBe(200);
    expect(await deviceIdsOf(erin.userId)).toEqual(['erin-phone']);
    // The token endpoint records the grant a connected app holds; the test tokens skip that endpoint.
    await recordGrantUse(app.db.orm.em.fork(), { grantId: `grant-${erin.userId}`, grantKey: `grant-${erin.userId}`, userId: erin.userId, clientId: erin.clientId, scopes: RW });
    const settings = await tokenWith(app, erin, ['profile:write']);
    const res = await platform(app, settings, 'DELETE', `/me/connected-apps/${erin.clientId}`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(await deviceIdsOf(erin.userId)).toEqual([]);
  });

  it('deactivating the app (admin CLI) removes every registration it made', async () => {
    const fay = await member(app, 'fay_push', RW, { official: true });
    expect((await register(device({ deviceId: 'fay-phone' }), fay.token)).status).toBe(200);
    const run = await runAdmin(app, 'app:deactivate', fay.clientId);
    expect(run.code, run.stderr).toBe(0);
    expect(await deviceIdsOf(fay.userId)).toEqual([]);
    // Alice's registrations through her own app are untouched.
    expect((await deviceIdsOf(alice.userId)).length).toBeGreaterThan(0);
  });
});
