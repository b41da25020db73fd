// The user's own profile and preferences over real HTTP: exact shapes, PATCH changing only the fields
// given, each field's boundaries, scopes, the change-feed records (feed and snapshot), and the default
// watched threshold applied by playback.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { query } from '../src/core/db/sql.ts';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { changesOf } from './helpers/change-log.ts';
import { expectError } from './helpers/envelope.ts';
import { settled } from './helpers/sync-client.ts';
import { member, platform, seedCatalog, SPIRITED_AWAY, tokenWith, type Member } from './helpers/seed.ts';

let app: TestApp;
let alice: Member;
const RW = ['profile:read', 'profile:write'];
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const PROFILE_KEYS = ['avatarUrl', 'bio', 'displayName', 'id', 'joinedAt', 'privacy', 'username'];
const DEFAULT_PREFERENCES = {
  region: null,
  language: null,
  spoilers: { hideEpisodeTitles: false, hideOverviews: false, hideImages: false, hideRatings: false },
  watchedThreshold: 0.8,
};

beforeAll(async () => {
  app = await startTestApp();
  await seedCatalog(app, { shows: 1 });
  alice = await member(app, 'Alice_P', [...RW, 'playback:write']);
});
afterAll(() => app?.stop());

const patch = (path: string, body: unknown, token = alice.token) => platform(app, token, 'PATCH', path, body);
const get = (path: string, token = alice.token) => platform(app, token, 'GET', path);

async function patchProfile(body: Record<string, unknown>) {
  const res = await patch('/me/profile', body);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
}

describe('GET /me/profile', () => {
  it('has exactly the Profile shape, with defaults for a new user', async () => {
    const res = await get('/me/profile');
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(PROFILE_KEYS);
    expect(res.body).toEqual({ id: alice.userId, username: 'Alice_P', displayName: 'Alice_P', avatarUrl: null, bio: '', privacy: 'public', joinedAt: expect.stringMatching(ISO) });
  });

  it('needs profile:read; PATCH needs profile:write', async () => {
    const writeOnly = await tokenWith(app, alice, ['profile:write']);
    expectError(await get('/me/profile', writeOnly), 403, 'insufficient_scope', { required_scope: 'profile:read' });
    expectError(await get('/me/preferences', writeOnly), 403, 'insufficient_scope', { required_scope: 'profile:read' });
    const readOnly = await tokenWith(app, alice, ['profile:read']);
    expectError(await patch('/me/profile', { bio: 'x' }, readOnly), 403, 'insufficient_scope', { required_scope: 'profile:write' });
    expectError(await patch('/me/preferences', { region: 'US' }, readOnly), 403, 'insufficient_scope', { required_scope: 'profile:write' });
    expectError(await platform(app, null, 'GET', '/me/profile'), 401, 'invalid_token');
  });
});

describe('PATCH /me/profile', () => {
  it('changes only the fields given and answers the whole profile', async () => {
    const before = (await get('/me/profile')).body;
    const after = await patchProfile({ bio: 'Films and more films.' });
    expect(after).toEqual({ ...before, bio: 'Films and more films.' });
    expect(await patchProfile({ displayName: '  Alice Liddell  ' })).toEqual({ ...before, bio: 'Films and more films.', displayName: 'Alice Liddell' });
    expect((await get('/me/profile')).body).toMatchObject({ displayName: 'Alice Liddell', bio: 'Films and more films.' });
  });

  it('displayName: 1 to 64 characters after trimming, no control characters; null resets it to the username', async () => {
    expect((await patchProfile({ displayName: 'd'.repeat(64) })).displayName).toBe('d'.repeat(64));
    expect((await patchProfile({ displayName: '🎬'.repeat(64) })).displayName).toBe('🎬'.repeat(64));
    expectError(await patch('/me/profile', { displayName: 'd'.repeat(65) }), 400, 'invalid_request');
    expectError(await patch('/me/profile', { displayName: '   ' }), 400, 'invalid_request');
    expectError(await patch('/me/profile', { displayName: 'a\u0007b' }), 400, 'invalid_request');
    expectError(await patch('/me/profile', { displayName: 5 }), 400, 'invalid_request');
    expect((await patchProfile({ displayName: null })).displayName).toBe('Alice_P');
  });

  it('avatarUrl: an https URL of at most 2048 characters; null removes it', async () => {
    const base = 'https://img.example/';
    const max = base + 'a'.repeat(2048 - base.length);
    expect((await patchProfile({ avatarUrl: max })).avatarUrl).toBe(max);
    expectError(await patch('/me/profile', { avatarUrl: `${max}a` }), 400, 'invalid_request');
    expectError(await patch('/me/profile', { avatarUrl: 'http://img.example/a.png' }), 400, 'invalid_request');
    expectError(await patch('/me/profile', { avatarUrl: 'not a url' }), 400, 'invalid_request');
    expect((await patchProfile({ avatarUrl: null })).avatarUrl).toBeNull();
  });

  it('bio: at most 500 characters after trimming, line breaks kept, other control characters refused; "" removes it', async () => {
    expect((await patchProfile({ bio: `  ${'b'.repeat(500)}  ` })).bio).toBe('b'.repeat(500));
    expect((await patchProfile({ bio: '🍿'.repeat(500) })).bio).toBe('🍿'.repeat(500));
    expectError(await patch('/me/profile', { bio: 'b'.repeat(501) }), 400, 'invalid_request');
    expect((await patchProfile({ bio: 'line one\r\nline two' })).bio).toBe('line one\nline two');
    expectError(await patch('/me/profile', { bio: 'tab\there' }), 400, 'invalid_request');
    expectError(await patch('/me/profile', { bio: null }), 400, 'invalid_request');
    expect((await patchProfile({ bio: '' })).bio).toBe('');
  });

  it('privacy: public or private', async () => {
    expect((await patchProfile({ privacy: 'private' })).privacy).toBe('private');
    expect((await patchProfile({ privacy: 'public' })).privacy).toBe('public');
    expectError(await patch('/me/profile', { privacy: 'friends' }), 400, 'invalid_request');
  });

  it('refuses unknown fields, an empty body and read-only fields', async () => {
    expectError(await patch('/me/profile', { bio: 'x', nickname: 'y' }), 400, 'invalid_request');
    expectError(await patch('/me/profile', { username: 'someone_else' }), 400, 'invalid_request');
    expectError(await patch('/me/profile', {}), 400, 'invalid_request');
  });
});

describe('preferences', () => {
  it('GET /me/preferences has every default before anything is set', async () => {
    const bob = await member(app, 'bob_p', RW);
    const res = await get('/me/preferences', bob.token);
    expect(res.status).toBe(200);
    expect(res.body).toEqual(DEFAULT_PREFERENCES);
  });

  it('PATCH changes only the fields given, within spoilers too', async () => {
    const carol = await member(app, 'carol_p', RW);
    const p = (body: unknown) => patch('/me/preferences', body, carol.token);
    expect((await p({ region: 'gb' })).body).toEqual({ ...DEFAULT_PREFERENCES, region: 'GB' });
    expect((await p({ spoilers: { hideEpisodeTitles: true } })).body).toEqual({ ...DEFAULT_PREFERENCES, region: 'GB', spoilers: { ...DEFAULT_PREFERENCES.spoilers, hideEpisodeTitles: true } });
    const res = await p({ spoilers: { hideRatings: true }, language: 'en-gb' });
    expect(res.body).toEqual({ region: 'GB', language: 'en-GB', spoilers: { hideEpisodeTitles: true, hideOverviews: false, hideImages: false, hideRatings: true }, watchedThreshold: 0.8 });
    expect((await get('/me/preferences', carol.token)).body).toEqual(res.body);
    expect((await p({ region: null, language: null })).body).toMatchObject({ region: null, language: null, spoilers: { hideEpisodeTitles: true, hideRatings: true } });
  });

  it('region: two letters', async () => {
    expect((await patch('/me/preferences', { region: 'US' })).body.region).toBe('US');
    for (const region of ['USA', 'U', 'U1', '', 12]) expectError(await patch('/me/preferences', { region }), 400, 'invalid_request');
  });

  it('language: a BCP 47 tag of at most 35 characters, stored in canonical form', async () => {
    expect((await patch('/me/preferences', { language: 'zh-hant-tw' })).body.language).toBe('zh-Hant-TW');
    const at35 = 'en-US-x-aaaaaaaa-bbbbbbbb-ccccccc-d';
    expect(at35).toHaveLength(35);
    expect((await patch('/me/preferences', { language: at35 })).body.language).toBe(at35);
    expectError(await patch('/me/preferences', { language: 'en-US-x-aaaaaaaa-bbbbbbbb-cccccccc-d' }), 400, 'invalid_request');
    for (const language of ['en_US', 'e', 'english language', '']) expectError(await patch('/me/preferences', { language }), 400, 'invalid_request');
  });

  it('watchedThreshold: 0.5 to 1; null resets it to 0.8', async () => {
    expect((await patch('/me/preferences', { watchedThreshold: 0.5 })).body.watchedThreshold).toBe(0.5);
    expect((await patch('/me/preferences', { watchedThreshold: 1 })).body.watchedThreshold).toBe(1);
    for (const watchedThreshold of [0.49, 1.01, '0.9', true]) expectError(await patch('/me/preferences', { watchedThreshold }), 400, 'invalid_request');
    expect((await patch('/me/preferences', { watchedThreshold: null })).body.watchedThreshold).toBe(0.8);
  });

  it('refuses unknown fields (also within spoilers) and an empty body', async () => {
    expectError(await patch('/me/preferences', { theme: 'dark' }), 400, 'invalid_request');
    expectError(await patch('/me/preferences', { spoilers: { hideCast: true } }), 400, 'invalid_request');
    expectError(await patch('/me/preferences', { spoilers: { hideRatings: 'yes' } }), 400, 'invalid_request');
    expectError(await patch('/me/preferences', {}), 400, 'invalid_request');
  });
});

describe('change feed', () => {
  it('records each update as the whole record; the feed and the snapshot serve them with profile:read', async () => {
    const dave = await member(app, 'dave_p', RW);
    const profile = await patch('/me/profile', { bio: 'hello' }, dave.token);
    const prefs = await patch('/me/preferences', { region: 'DE' }, dave.token);
    await patch('/me/preferences', { watchedThreshold: 0.9 }, dave.token);
    const logged = await changesOf(app, dave.userId);
    expect(logged).toEqual([
      { resource: 'profile', resource_id: dave.userId, op: 'upsert', data: profile.body },
      { resource: 'preferences', resource_id: dave.userId, op: 'upsert', data: prefs.body },
      { resource: 'preferences', resource_id: dave.userId, op: 'upsert', data: { ...prefs.body, watchedThreshold: 0.9 } },
    ]);

    await settled(app, dave.userId);
    const feed = await get('/me/sync/changes?resources=profile,preferences', dave.token);
    expect(feed.status, JSON.stringify(feed.body)).toBe(200);
    const changes = feed.body.changes as Array<Record<string, unknown>>;
    expect(changes.map((c) => [c.resource, c.resourceId, c.op])).toEqual([
      ['profile', dave.userId, 'upsert'],
      ['preferences', dave.userId, 'upsert'],
      ['preferences', dave.userId, 'upsert'],
    ]);
    // Each change is served with the item's newest state.
    expect(changes[1]!.data).toEqual({ ...prefs.body, watchedThreshold: 0.9 });

    for (const [resource, data] of [['profile', profile.body], ['preferences', { ...prefs.body, watchedThreshold: 0.9 }]] as const) {
      const snap = await get(`/me/sync/snapshot?resource=${resource}`, dave.token);
      expect(snap.status, JSON.stringify(snap.body)).toBe(200);
      expect(snap.body.items).toEqual([data]);
    }

    const noProfile = await tokenWith(app, dave, ['lists:read']);
    expectError(await get('/me/sync/changes?resources=profile', noProfile), 403, 'insufficient_scope', { required_scope: 'profile:read' });
  });

  it('records nothing for a refused update', async () => {
    const erin = await member(app, 'erin_p', RW);
    expectError(await patch('/me/profile', { displayName: '' }, erin.token), 400, 'invalid_request');
    expectError(await patch('/me/preferences', { language: 'en_US' }, erin.token), 400, 'invalid_request');
    expect(await changesOf(app, erin.userId)).toEqual([]);
  });
});

describe('the default watched threshold in playback', () => {
  let n = 0;
  const stop = (m: Member, progress: number, extra: Record<string, unknown> = {}) =>
    platform(app, m.token, 'POST', '/playback/stop', {
      event_id: `thr-${++n}`,
      event_created_at: Date.now() - 60_000 + n,
      media_type: 'movie',
      title: 'Spirited Away',
      movie_db_id: SPIRITED_AWAY,
      playback_session_id: `thr-session-${n}`,
      progress,
      ...extra,
    });
  const watches = async (userId: string) =>
    (await query<{ n: number }>(app.db.orm.em.fork(), { text: `select count(*)::int as n from watch_history where user_id = $1`, params: [userId] }))[0]!.n;

  it('a stop without watched_threshold uses the user\'s preference, else 0.8; the event\'s own threshold wins', async () => {
    const frank = await member(app, 'frank_p', [...RW, 'playback:write']);
    expect((await stop(frank, 0.6)).status).toBe(200);
    expect(await watches(frank.userId)).toBe(0);

    expect((await patch('/me/preferences', { watchedThreshold: 0.5 }, frank.token)).status).toBe(200);
    expect((await stop(frank, 0.6)).status).toBe(200);
    expect(await watches(frank.userId)).toBe(1);

    // The event's own threshold overrides the preference.
    const over = await stop(frank, 0.6, { watched_threshold: 0.9 });
    expect(over.status).toBe(200);
    expect(await watches(frank.userId)).toBe(1);
  });
});
