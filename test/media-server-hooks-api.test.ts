// The receivers' procedures (POST/GET /me/media-server-hooks, PATCH and DELETE /me/media-server-hooks/{id},
// POST .../{id}/rotate): exact wire shapes, the secret shown once and stored hashed, its URLs, the cap,
// each error code, the scope; and the capability itself: a wrong, rotated or deleted secret is the 404 of
// a path that does not exist. With the limits on: the procedures' bucket and each receiver's bucket.
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { query } from '../src/core/db/sql.ts';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { expectError } from './helpers/envelope.ts';
import { call } from './helpers/http.ts';
import { createReceiver, fixture, postJson, postPlex, type Created } from './helpers/media-servers.ts';
import { member, ok, platform, type Member } from './helpers/seed.ts';

let app: TestApp;
let alice: Member;
let bob: Member;

beforeAll(async () => {
  app = await startTestApp();
  alice = await member(app, 'hooks_api_alice', ['playback:write']);
  bob = await member(app, 'hooks_api_bob', ['playback:write']);
});
afterAll(() => app?.stop());

const RECEIVER_KEYS = ['accountFilter', 'createdAt', 'deferred', 'events', 'id', 'label', 'lastEventAt', 'secretCreatedAt'];
const SECRET = /^msh_[A-Za-z0-9_-]{43}$/;
const sha256 = (s: string) => createHash('sha256').update(s).digest('base64url');

async function storedHashes(userId: string) {
  return (await query<{ secret_hash: string }>(app.db.orm.em.fork(), { text: 'select secret_hash from media_server_receiver where user_id = $1 order by id', params: [userId] })).map((r) => r.secret_hash);
}

/** The 404 of a path that does not exist, but its request id (and the path in its message). */
async function expectNoRoute(url: string) {
  const res = await postJson(url, fixture('emby-test'));
  expect(res.status).toBe(404);
  expect(res.body).toEqual({ error: 'not_found', message: `No route for POST ${new URL(url).pathname}`, request_id: expect.stringMatching(/^req_/) });
}

describe('POST /me/media-server-hooks', () => {
  it('answers the receiver with its secret and one URL per server kind; only the secret\'s sha256 is stored', async () => {
    const created = await ok(platform(app, alice.token, 'POST', '/me/media-server-hooks', { label: '  Living room Plex  ', accountFilter: 'elan' }));
    expect(Object.keys(created).sort()).toEqual([...RECEIVER_KEYS, 'secret', 'urls'].sort());
    const secret = created.secret as string;
    expect(secret).toMatch(SECRET);
    expect(created).toEqual({
      id: expect.any(Number),
      label: 'Living room Plex',
      accountFilter: 'elan',
      createdAt: expect.stringMatching(/Z$/),
      secretCreatedAt: expect.stringMatching(/Z$/),
      lastEventAt: null,
      events: { plex: 0, jellyfin: 0, emby: 0 },
      deferred: [],
      secret,
      urls: {
        plex: `${app.url}/hooks/media-server/${secret}/plex`,
        jellyfin: `${app.url}/hooks/media-server/${secret}/jellyfin`,
        emby: `${app.url}/hooks/media-server/${secret}/emby`,
      },
    });
    expect(await storedHashes(alice.userId)).toEqual([sha256(secret)]);
    const text = JSON.stringify(await query(app.db.orm.em.fork(), { text: 'select * from media_server_receiver', params: [] }));
    expect(text).not.toContain(secret);
  });

  it('refuses bad input with 400 invalid_request and writes nothing', async () => {
    const m = await member(app, 'hooks_api_input', ['playback:write']);
    for (const body of [{}, { label: '' }, { label: '   ' }, { label: 'x'.repeat(101) }, { label: 'a\u0007b' }, { label: 'ok', accountFilter: '' }, { label: 'ok', accountFilter: 'y'.repeat(201) }, { label: 'ok', extra: 1 }, { label: 42 }]) {
      expectError(await platform(app, m.token, 'POST', '/me/media-server-hooks', body), 400, 'invalid_request');
    }
    expect(await storedHashes(m.userId)).toEqual([]);
  });

  it('keeps at most 10 receivers per user: the 11th is 409 conflict', async () => {
    const m = await member(app, 'hooks_api_cap', ['playback:write']);
    await Promise.all(Array.from({ length: 10 }, (_, i) => createReceiver(app, m.token, { label: `Server ${i}` })));
    expectError(await platform(app, m.token, 'POST', '/me/media-server-hooks', { label: 'One more' }), 409, 'conflict');
    expect(await storedHashes(m.userId)).toHaveLength(10);
  });

  it('works over /trpc as platform.mediaServerHooks.create', async () => {
    const m = await member(app, 'hooks_api_trpc', ['playback:write']);
    const res = await call(app, '/trpc/platform.mediaServerHooks.create', { method: 'POST', token: m.token, body: { label: 'Over tRPC' } });
    expect(res.status).toBe(200);
    expect((res.body.result as { data: Record<string, unknown> }).data).toMatchObject({ label: 'Over tRPC', secret: expect.stringMatching(SECRET) });
  });
});

describe('GET /me/media-server-hooks', () => {
  it('lists the user\'s receivers, oldest first, without secrets; never another user\'s', async () => {
    const m = await member(app, 'hooks_api_list', ['playback:write']);
    const first = await createReceiver(app, m.token, { label: 'First' });
    const second = await createReceiver(app, m.token, { label: 'Second' });
    await createReceiver(app, bob.token, { label: 'Bob\'s' });
    const listed = await ok(platform(app, m.token, 'GET', '/me/media-server-hooks'));
    expect(Object.keys(listed)).toEqual(['items']);
    const items = listed.items as Array<Record<string, unknown>>;
    expect(items.map((i) => i.id)).toEqual([first.id, second.id]);
    for (const item of items) expect(Object.keys(item).sort()).toEqual(RECEIVER_KEYS);
    expect(items[0]).toEqual({ ...first, secret: undefined, urls: undefined });
    expect(JSON.stringify(listed)).not.toContain(first.secret);
  });
});

describe('PATCH /me/media-server-hooks/{id}', () => {
  let receiver: Created;
  beforeAll(async () => {
    receiver = await createReceiver(app, alice.token, { label: 'To rename' });
  });

  it('renames, sets and clears the account filter', async () => {
    const renamed = await ok(platform(app, alice.token, 'PATCH', `/me/media-server-hooks/${receiver.id}`, { label: 'Renamed', accountFilter: 'someone' }));
    expect(renamed).toMatchObject({ id: receiver.id, label: 'Renamed', accountFilter: 'someone' });
    expect(Object.keys(renamed).sort()).toEqual(RECEIVER_KEYS);
    expect(await ok(platform(app, alice.token, 'PATCH', `/me/media-server-hooks/${receiver.id}`, { accountFilter: null }))).toMatchObject({ label: 'Renamed', accountFilter: null });
  });

  it('answers 400 for an empty change, 404 for an unknown id or another user\'s receiver', async () => {
    expectError(await platform(app, alice.token, 'PATCH', `/me/media-server-hooks/${receiver.id}`, {}), 400, 'invalid_request');
    expectError(await platform(app, alice.token, 'PATCH', '/me/media-server-hooks/2000000000', { label: 'x' }), 404, 'not_found');
    expectError(await platform(app, bob.token, 'PATCH', `/me/media-server-hooks/${receiver.id}`, { label: 'Mine now' }), 404, 'not_found');
    expectError(await platform(app, alice.token, 'PATCH', '/me/media-server-hooks/abc', { label: 'x' }), 400, 'invalid_request');
  });
});

describe('the capability', () => {
  it('a wrong secret, an unknown kind and a malformed secret are each the 404 of a path that does not exist', async () => {
    const receiver = await createReceiver(app, alice.token, { label: 'Probe' });
    const base = `${app.url}/hooks/media-server`;
    await expectNoRoute(`${base}/msh_${'A'.repeat(43)}/plex`);
    await expectNoRoute(`${base}/${receiver.secret}/kodi`);
    await expectNoRoute(`${base}/not-a-secret/plex`);
    await expectNoRoute(`${base}/${receiver.secret.slice(0, -1)}/emby`);
    const unknownPath = await postJson(`${app.url}/no/such/path`, '{}');
    expect(unknownPath.body).toEqual({ error: 'not_found', message: 'No route for POST /no/such/path', request_id: expect.stringMatching(/^req_/) });
    // Another method on the right URL is no route either.
    expect((await call(app, new URL(receiver.urls.plex).pathname)).status).toBe(404);
  });

  it('rotating gives new URLs at once: the old ones answer 404, the new ones work', async () => {
    const receiver = await createReceiver(app, alice.token, { label: 'Rotate me' });
    expect((await postJson(receiver.urls.emby, fixture('emby-test'))).status).toBe(200);
    const rotated = await ok(platform(app, alice.token, 'POST', `/me/media-server-hooks/${receiver.id}/rotate`));
    expect(Object.keys(rotated).sort()).toEqual([...RECEIVER_KEYS, 'secret', 'urls'].sort());
    expect(rotated).toMatchObject({ id: receiver.id, label: 'Rotate me', events: { plex: 0, jellyfin: 0, emby: 1 }, secret: expect.stringMatching(SECRET) });
    expect(rotated.secret).not.toBe(receiver.secret);
    expect(Date.parse(rotated.secretCreatedAt as string)).toBeGreaterThanOrEqual(Date.parse(receiver.secretCreatedAt as string));
    await expectNoRoute(receiver.urls.emby);
    await expectNoRoute(receiver.urls.plex);
    expect((await postJson((rotated.urls as Created['urls']).emby, fixture('emby-test'))).status).toBe(200);
    expectError(await platform(app, bob.token, 'POST', `/me/media-server-hooks/${receiver.id}/rotate`), 404, 'not_found');
  });

  it('deleting a receiver: its URLs answer 404; deleting again, or another user\'s, is 404', async () => {
    const receiver = await createReceiver(app, alice.token, { label: 'Delete me' });
    expectError(await platform(app, bob.token, 'DELETE', `/me/media-server-hooks/${receiver.id}`), 404, 'not_found');
    expect(await ok(platform(app, alice.token, 'DELETE', `/me/media-server-hooks/${receiver.id}`))).toEqual({ id: receiver.id, deleted: true });
    await expectNoRoute(receiver.urls.jellyfin);
    expect((await postPlex(receiver.urls.plex, fixture('plex-movie'))).status).toBe(404);
    expectError(await platform(app, alice.token, 'DELETE', `/me/media-server-hooks/${receiver.id}`), 404, 'not_found');
  });
});

describe('scope', () => {
  it('every procedure needs playback:write (403 insufficient_scope naming it)', async () => {
    const reader = await member(app, 'hooks_api_reader', ['playback:read', 'history:read']);
    const calls: Array<[string, string, unknown?]> = [
      ['POST', '/me/media-server-hooks', { label: 'x' }],
      ['GET', '/me/media-server-hooks'],
      ['PATCH', '/me/media-server-hooks/1', { label: 'x' }],
      ['POST', '/me/media-server-hooks/1/rotate'],
      ['DELETE', '/me/media-server-hooks/1'],
    ];
    for (const [method, path, body] of calls) {
      expectError(await platform(app, reader.token, method, path, body), 403, 'insufficient_scope', { required_scope: 'playback:write' });
    }
    expect(await storedHashes(reader.userId)).toEqual([]);
  });
});

describe('with the rate limits on', () => {
  let limited: TestApp;
  beforeAll(async () => {
    limited = await startTestApp({ RATE_LIMITS: 'on' });
  });
  afterAll(() => limited?.stop());

  it('media-server-receivers: 30 creations and rotations an hour per user, then 429', async () => {
    const m = await member(limited, 'hooks_limit_user', ['playback:write']);
    const receiver = await createReceiver(limited, m.token, { label: 'Counted' });
    for (let i = 1; i < 30; i++) expect((await platform(limited, m.token, 'POST', `/me/media-server-hooks/${receiver.id}/rotate`)).status).toBe(200);
    const over = await platform(limited, m.token, 'POST', '/me/media-server-hooks', { label: 'Over' });
    expectError(over, 429, 'rate_limited', { retry_after: expect.any(Number) });
    expect(over.headers.get('x-ratelimit-limit')).toBe('30');
  });

  it('media-server-hook: 300 posts per 5 minutes per receiver, then 429 with Retry-After; another receiver is not touched', async () => {
    const m = await member(limited, 'hooks_limit_posts', ['playback:write']);
    const busy = await createReceiver(limited, m.token, { label: 'Busy' });
    const quiet = await createReceiver(limited, m.token, { label: 'Quiet' });
    const test = JSON.stringify(fixture('emby-test'));
    for (let i = 0; i < 300; i++) {
      const res = await postJson(busy.urls.emby, test);
      if (res.status !== 200) throw new Error(`post ${i + 1}: ${res.status}`);
    }
    const over = await postJson(busy.urls.emby, test);
    expect(over.status).toBe(429);
    expect(over.body).toEqual({ error: 'rate_limited', message: expect.stringContaining('media-server-hook'), request_id: expect.stringMatching(/^req_/), retry_after: expect.any(Number) });
    expect(Number(over.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(over.headers.get('x-ratelimit-limit')).toBe('300');
    expect((await postJson(quiet.urls.emby, test)).status).toBe(200);
  }, 60_000);
});
