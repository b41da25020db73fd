// Users and apps in core, on a real database: the rules on names, passwords, scopes and redirect URIs,
// how secrets are stored, and the lookups the authorization server relies on.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EntityManager } from '@mikro-orm/postgresql';
import { createUser, findUserById, findUserByUsername, verifyPassword } from '../src/core/accounts/service.ts';
import { createApp, findApp, rotateSecret, setAppActive, verifyClientSecret } from '../src/core/apps/service.ts';
import { redirectUriProblem } from '../src/core/apps/redirect-uris.ts';
import { isScope, SCOPE_DESCRIPTIONS, SCOPES } from '../src/core/apps/scopes.ts';
import { query } from '../src/core/db/sql.ts';
import { ApiError } from '../src/core/errors.ts';
import type { Database } from '../src/core/db/orm.ts';
import { migratedDatabase } from './helpers/db.ts';

let db: Database;
let release: () => Promise<void>;
const em = (): EntityManager => db.orm.em.fork();

beforeAll(async () => {
  ({ db, release } = await migratedDatabase());
});
afterAll(() => release?.());

async function rejection(promise: Promise<unknown>): Promise<ApiError> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ApiError);
  return err as ApiError;
}

const passwordHash = async (id: string) =>
  (await query<{ password_hash: string }>(em(), { text: 'select password_hash from app_user where id = $1', params: [id] }))[0]!.password_hash;

describe('users', () => {
  it('creates a user without exposing the hash; display name defaults to the username', async () => {
    const user = await createUser(em(), { username: 'Alice', password: 'correct horse' });
    expect(Object.keys(user).sort()).toEqual(['avatar_url', 'created_at', 'display_name', 'id', 'username']);
    expect(user).toMatchObject({ username: 'Alice', display_name: 'Alice', avatar_url: null });
    expect(user.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(user.created_at).toBeInstanceOf(Date);
    expect(Math.abs(user.created_at.getTime() - Date.now())).toBeLessThan(60_000);
  });

  it('keeps usernames unique regardless of case', async () => {
    await createUser(em(), { username: 'Bob.Smith', password: 'password1' });
    for (const username of ['bob.smith', 'BOB.SMITH', 'Bob.Smith']) {
      const err = await rejection(createUser(em(), { username, password: 'password2' }));
      expect(err.code).toBe('conflict');
    }
  });

  it('finds users by id and by username in any case', async () => {
    const user = await createUser(em(), { username: 'carol_1', password: 'password1', displayName: '  Carol  ', avatarUrl: 'https://img.example/c.png' });
    expect(user).toMatchObject({ display_name: 'Carol', avatar_url: 'https://img.example/c.png' });
    expect(await findUserById(em(), user.id)).toEqual(user);
    expect(await findUserByUsername(em(), 'CAROL_1')).toEqual(user);
    expect(await findUserByUsername(em(), 'nobody')).toBeNull();
    expect(await findUserById(em(), '00000000-0000-4000-8000-000000000000')).toBeNull();
    expect(await findUserById(em(), 'not-a-uuid')).toBeNull();
  });

  it('accepts passwords of 8 to 256 characters and rejects 7 and 257', async () => {
    expect((await rejection(createUser(em(), { username: 'len7', password: 'x'.repeat(7) }))).code).toBe('invalid_request');
    await expect(createUser(em(), { username: 'len8', password: 'x'.repeat(8) })).resolves.toBeTruthy();
    await expect(createUser(em(), { username: 'len256', password: 'x'.repeat(256) })).resolves.toBeTruthy();
    expect((await rejection(createUser(em(), { username: 'len257', password: 'x'.repeat(257) }))).code).toBe('invalid_request');
    // Counted in characters, not UTF-16 units or bytes: eight emoji are eight characters.
    await expect(createUser(em(), { username: 'emoji8', password: '🎬'.repeat(8) })).resolves.toBeTruthy();
    expect(await findUserByUsername(em(), 'len257')).toBeNull();
  });

  it('enforces the username rules in code and in the database', async () => {
    for (const username of ['ab', 'x'.repeat(33), 'has space', 'émile', 'a/b', 'semi;colon', '']) {
      expect((await rejection(createUser(em(), { username, password: 'password1' }))).code).toBe('invalid_request');
    }
    for (const username of ['abc', 'x'.repeat(32), 'a_b.c-d', '123']) {
      await expect(createUser(em(), { username, password: 'password1' })).resolves.toMatchObject({ username });
    }
    // The check constraint holds even for a row written around the service.
    await expect(
      query(em(), { text: `insert into app_user (username, display_name, password_hash) values ('no way', 'x', 'x')`, params: [] }),
    ).rejects.toThrow(/app_user_username_format/);
  });

  it('rejects bad display names and avatar URLs', async () => {
    expect((await rejection(createUser(em(), { username: 'dn1', password: 'password1', displayName: '   ' }))).code).toBe('invalid_request');
    expect((await rejection(createUser(em(), { username: 'dn2', password: 'password1', displayName: 'x'.repeat(65) }))).code).toBe('invalid_request');
    expect((await rejection(createUser(em(), { username: 'av1', password: 'password1', avatarUrl: 'http://img.example/a.png' }))).code).toBe('invalid_request');
    expect((await rejection(createUser(em(), { username: 'av2', password: 'password1', avatarUrl: 'not a url' }))).code).toBe('invalid_request');
  });

  it('stores an argon2id hash, never the password', async () => {
    const user = await createUser(em(), { username: 'hashy', password: 'my secret words' });
    const hash = await passwordHash(user.id);
    expect(hash.startsWith('$argon2id$')).toBe(true);
    expect(hash).not.toContain('my secret words');
  });

  it('verifies passwords: right, wrong, unknown user, any case of the username', async () => {
    const user = await createUser(em(), { username: 'dave', password: 'open sesame' });
    expect(await verifyPassword(em(), 'dave', 'open sesame')).toEqual(user);
    expect(await verifyPassword(em(), 'DAVE', 'open sesame')).toEqual(user);
    expect(await verifyPassword(em(), 'dave', 'open sesame!')).toBeNull();
    expect(await verifyPassword(em(), 'dave', '')).toBeNull();
    expect(await verifyPassword(em(), 'nobody-here', 'open sesame')).toBeNull();
    expect(await verifyPassword(em(), 'dave', 'x'.repeat(10_000))).toBeNull();
  });

  it('matches a password typed in another Unicode form (NFKC)', async () => {
    await createUser(em(), { username: 'unicode', password: 'caf\u00e9 au lait' });
    expect(await verifyPassword(em(), 'unicode', 'cafe\u0301 au lait')).toMatchObject({ username: 'unicode' });
  });

  it('upgrades a hash made with older parameters after a successful check', async () => {
    const user = await createUser(em(), { username: 'oldhash', password: 'password1' });
    const argon2 = (await import('argon2')).default;
    const old = await argon2.hash('password1', { type: argon2.argon2id, memoryCost: 8192, timeCost: 1, parallelism: 1 });
    await query(em(), { text: 'update app_user set password_hash = $2 where id = $1', params: [user.id, old] });
    expect(await verifyPassword(em(), 'oldhash', 'password1')).toEqual(user);
    const now = await passwordHash(user.id);
    expect(now).not.toBe(old);
    expect(now).toMatch(/^\$argon2id\$v=19\$m=19456,p=1,t=2\$/);
    expect(await verifyPassword(em(), 'oldhash', 'password1')).toEqual(user);
  });
});

describe('scopes', () => {
  it('are the documented 16, in order, each described; email:read is not one of them', () => {
    expect(SCOPES).toHaveLength(16);
    expect(SCOPES[0]).toBe('profile:read');
    expect(SCOPES[15]).toBe('events:read');
    expect(Object.keys(SCOPE_DESCRIPTIONS)).toEqual([...SCOPES]);
    for (const scope of SCOPES) expect(SCOPE_DESCRIPTIONS[scope]).not.toBe('');
    expect(isScope('history:write')).toBe(true);
    expect(isScope('email:read')).toBe(false);
    expect(isScope('history')).toBe(false);
  });
});

describe('apps', () => {
  const redirectUris = ['https://example.com/callback'];

  it('creates a public app: no secret, all 16 scopes by default', async () => {
    const created = await createApp(em(), { name: 'TV app', redirectUris, confidential: false, official: false });
    expect(Object.keys(created).sort()).toEqual(['allowed_scopes', 'client_id', 'client_secret']);
    expect(created.client_id).toMatch(/^app_[A-Za-z0-9_-]{24}$/);
    expect(created.client_secret).toBeNull();
    expect(created.allowed_scopes).toEqual([...SCOPES]);
    const app = await findApp(em(), created.client_id);
    expect(app).toMatchObject({ name: 'TV app', redirect_uris: redirectUris, allowed_scopes: [...SCOPES], confidential: false, client_secret_hash: null, official: false, active: true, secret_rotated_at: null });
    expect(await verifyClientSecret(app!, '')).toBe(false);
    expect(await verifyClientSecret(app!, 'anything')).toBe(false);
  });

  it('creates a confidential app whose secret is stored hashed and verifies', async () => {
    const created = await createApp(em(), { name: 'Server app', redirectUris, scopes: ['history:read', 'profile:read'], confidential: true, official: true });
    expect(created.client_secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    // Stored in the order of SCOPES whatever order they were given in.
    expect(created.allowed_scopes).toEqual(['profile:read', 'history:read']);
    const app = (await findApp(em(), created.client_id))!;
    expect(app.official).toBe(true);
    expect(app.client_secret_hash!.startsWith('$argon2id$')).toBe(true);
    expect(app.client_secret_hash).not.toContain(created.client_secret);
    expect(await verifyClientSecret(app, created.client_secret!)).toBe(true);
    expect(await verifyClientSecret(app, `${created.client_secret!}x`)).toBe(false);
  });

  it('rotates a confidential secret: the old one stops working, the new one works', async () => {
    const created = await createApp(em(), { name: 'Rotating', redirectUris, confidential: true, official: false });
    const fresh = await rotateSecret(em(), created.client_id);
    expect(fresh).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(fresh).not.toBe(created.client_secret);
    const app = (await findApp(em(), created.client_id))!;
    expect(app.secret_rotated_at).toBeInstanceOf(Date);
    expect(Number.isNaN(app.secret_rotated_at!.getTime())).toBe(false);
    expect(await verifyClientSecret(app, created.client_secret!)).toBe(false);
    expect(await verifyClientSecret(app, fresh)).toBe(true);
  });

  it('refuses to rotate a public app secret, and unknown apps are not_found', async () => {
    const pub = await createApp(em(), { name: 'Public', redirectUris, confidential: false, official: false });
    expect((await rejection(rotateSecret(em(), pub.client_id))).code).toBe('invalid_request');
    expect((await findApp(em(), pub.client_id))!.client_secret_hash).toBeNull();
    expect((await rejection(rotateSecret(em(), 'app_nope'))).code).toBe('not_found');
    expect((await rejection(setAppActive(em(), 'app_nope', false))).code).toBe('not_found');
    expect(await findApp(em(), 'app_nope')).toBeNull();
  });

  it('deactivates and reactivates, and others see it through findApp', async () => {
    const created = await createApp(em(), { name: 'Toggle', redirectUris, confidential: false, official: false });
    const before = (await findApp(em(), created.client_id))!;
    const off = await setAppActive(em(), created.client_id, false);
    expect(off.active).toBe(false);
    expect(off.updated_at.getTime()).toBeGreaterThanOrEqual(before.updated_at.getTime());
    expect((await findApp(em(), created.client_id))!.active).toBe(false);
    expect((await setAppActive(em(), created.client_id, true)).active).toBe(true);
    expect((await findApp(em(), created.client_id))!.active).toBe(true);
  });

  it('rejects unknown scopes, email:read and an empty scope list', async () => {
    for (const scopes of [['profile:read', 'history:delete'], ['email:read'], ['profile:read', 'email:read'], []]) {
      const err = await rejection(createApp(em(), { name: 'Bad scopes', redirectUris, scopes, confidential: false, official: true }));
      expect(err.code).toBe('invalid_request');
    }
    const reserved = await rejection(createApp(em(), { name: 'Reserved', redirectUris, scopes: ['email:read'], confidential: false, official: false }));
    expect(reserved.message).toContain('reserved');
  });

  it('rejects a missing name or no redirect URI', async () => {
    expect((await rejection(createApp(em(), { name: '  ', redirectUris, confidential: false, official: false }))).code).toBe('invalid_request');
    expect((await rejection(createApp(em(), { name: 'No URIs', redirectUris: [], confidential: false, official: false }))).code).toBe('invalid_request');
  });

  it('stores redirect URIs exactly as given, duplicates dropped', async () => {
    const uris = ['https://Example.com:443/cb?x=1', 'http://127.0.0.1:8765/cb', 'https://Example.com:443/cb?x=1', 'com.example.app:/oauth2redirect'];
    const created = await createApp(em(), { name: 'Many URIs', redirectUris: uris, confidential: false, official: false });
    expect((await findApp(em(), created.client_id))!.redirect_uris).toEqual([uris[0], uris[1], uris[3]]);
  });
});

describe('redirect URI rules', () => {
  it.each([
    'https://example.com/callback',
    'https://example.com',
    'https://example.com:8443/cb?app=1',
    'http://127.0.0.1/cb',
    'http://127.0.0.1:51234/callback',
    'http://[::1]:8080/cb',
    'http://localhost:3000/auth',
    'com.example.app:/callback',
    'com.example.app://callback',
    'org.tvapp.client:/oauth2redirect/provider',
  ])('accepts %s', (uri) => {
    expect(redirectUriProblem(uri)).toBeNull();
  });

  it.each([
    ['https://example.com/cb#frag', 'fragment'],
    ['https://example.com/cb#', 'fragment'],
    ['/callback', 'absolute'],
    ['example.com/callback', 'absolute'],
    ['http://example.com/cb', 'loopback'],
    ['http://192.168.1.2/cb', 'loopback'],
    ['http://127.0.0.1.nip.io/cb', 'loopback'],
    ['http://localhost.example.com/cb', 'loopback'],
    ['javascript:alert(1)', 'private-use'],
    ['data:text/html,hi', 'private-use'],
    ['file:///etc/passwd', 'private-use'],
    ['myapp:/callback', 'private-use'],
    ['com.example.app:', 'path'],
    ['https://user:pass@example.com/cb', 'credentials'],
    ['https://example.com/a b', 'spaces'],
    [' https://example.com/cb', 'spaces'],
    ['https://example.com/cb\n', 'spaces'],
    [`https://example.com/${'x'.repeat(2000)}`, 'characters'],
  ])('rejects %s', (uri, why) => {
    expect(redirectUriProblem(uri)).toContain(why);
  });

  it('a rejected URI with a newline still makes a one-line message', async () => {
    const err = await rejection(createApp(em(), { name: 'x', redirectUris: ['https://example.com/\nline'], confidential: false, official: false }));
    expect(err.code).toBe('invalid_request');
    expect(err.message).not.toContain('\n');
  });
});
