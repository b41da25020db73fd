// The device flow's polling interval (RFC 8628 §3.2, §3.5) against the running service: the device code
// response announces `interval` 5; a device that polls a pending code sooner is answered 400 `slow_down`
// in the envelope and that code's interval grows by 5 s for every later poll; polls sent at once get one
// answer on the merits and `slow_down` for the rest; the same code polled through /oauth/token is paced
// alike; other codes are not affected.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { expectError } from './helpers/envelope.ts';
import { makeApp, postForm, postJson } from './helpers/oauth.ts';
import { query } from '../src/core/db/sql.ts';
import { artifactKey } from '../src/oauth/adapter.ts';

let app: TestApp;
let clientId: string;
beforeAll(async () => {
  app = await startTestApp();
  clientId = (await makeApp(app, { scopes: ['profile:read'] })).client_id;
});
afterAll(() => app?.stop());

const path = (p: string) => `${app.url}/api/platform/v1${p}`;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function deviceCode(): Promise<string> {
  const res = await postJson(path('/auth/device/code'), { client_id: clientId });
  expect(res.status).toBe(200);
  return String(res.body.device_code);
}

const poll = (code: string) => postJson(path('/auth/device/token'), { client_id: clientId, device_code: code });

describe('device polling interval', () => {
  it('announces interval 5 in the device code response', async () => {
    const res = await postJson(path('/auth/device/code'), { client_id: clientId });
    expect(res.status).toBe(200);
    expect(res.body.interval).toBe(5);
  });

  it('answers a poll sooner than the interval with slow_down and grows that code\'s interval by 5 s', async () => {
    const code = await deviceCode();
    expectError(await poll(code), 400, 'authorization_pending');
    const early = await poll(code);
    expectError(early, 400, 'slow_down', { interval: 10 });
    // Six seconds is past the announced 5 but not past the code's new 10: still too soon, and 15 now.
    await sleep(6_000);
    expectError(await poll(code), 400, 'slow_down', { interval: 15 });
    // Another device's code is paced on its own.
    expectError(await poll(await deviceCode()), 400, 'authorization_pending');
  });

  it('takes a poll up to a second early as on time (a device polling on a timer of exactly the interval)', async () => {
    const code = await deviceCode();
    expectError(await poll(code), 400, 'authorization_pending');
    // The previous poll moved 4.2 s into the past: 0.8 s early, within the grace.
    await query(app.db.orm.em.fork(), {
      text: `update oauth_artifact set payload = jsonb_set(payload, '{at}', to_jsonb((payload->>'at')::float8 - 4.2)) where id = $1`,
      params: [artifactKey('DevicePoll', code)],
    });
    expectError(await poll(code), 400, 'authorization_pending');
    // 3.5 s after the previous poll is past the grace.
    await query(app.db.orm.em.fork(), {
      text: `update oauth_artifact set payload = jsonb_set(payload, '{at}', to_jsonb((payload->>'at')::float8 - 3.5)) where id = $1`,
      params: [artifactKey('DevicePoll', code)],
    });
    expectError(await poll(code), 400, 'slow_down', { interval: 10 });
  });

  it('answers one of several polls sent at once on its merits and slow_down to the others', async () => {
    const code = await deviceCode();
    const answers = await Promise.all(Array.from({ length: 4 }, () => poll(code)));
    const errors = answers.map((a) => a.body.error).sort();
    expect(errors).toEqual(['authorization_pending', 'slow_down', 'slow_down', 'slow_down']);
    for (const a of answers) expect(a.status).toBe(400);
  });

  it('paces a code polled through /oauth/token the same way', async () => {
    const code = await deviceCode();
    expectError(await poll(code), 400, 'authorization_pending');
    const viaToken = await postForm(path('/oauth/token'), { grant_type: 'urn:ietf:params:oauth:grant-type:device_code', client_id: clientId, device_code: code });
    expectError(viaToken, 400, 'slow_down', { interval: 10 });
  });
});
