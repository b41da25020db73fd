// Avatar URLs are stored and shown in their canonical form, over real HTTP: the attack string that closes
// an HTML attribute is stored with its quotes and spaces percent-encoded, over REST and /trpc alike, and
// every surface that shows the avatar (GET /me/profile, GET /me, the public profile, a list's
// collaborators, the export, the change feed) shows that form; javascript:, data:, http: and URLs with
// credentials are refused with 400 invalid_request; the length cap holds after percent-encoding. The
// migration brings values stored raw before it to the same form.
import { createTRPCClient, httpLink, TRPCClientError } from '@trpc/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { query } from '../src/core/db/sql.ts';
import type { AppRouter } from '../src/rpc/app-router.ts';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { changesOf } from './helpers/change-log.ts';
import { expectError } from './helpers/envelope.ts';
import { exporter, exportOf } from './helpers/export-seed.ts';
import { member, ok, platform, type Member } from './helpers/seed.ts';

let app: TestApp;
let alice: Member;
let bob: Member;
const em = () => app.db.orm.em.fork();
const SCOPES = ['profile:read', 'profile:write', 'lists:read', 'lists:write'];

const ATTACK = 'https://x.example/a.png" onerror="alert(1)';
const ATTACK_CANONICAL = 'https://x.example/a.png%22%20onerror=%22alert(1)';
const MIGRATION = 'Migration20261127230000_AvatarUrlCanonical';

const call = (m: Member, method: string, path: string, body?: unknown) => platform(app, m.token, method, path, body ?? (method === 'POST' ? {} : undefined));
const patchAvatar = (m: Member, avatarUrl: unknown) => call(m, 'PATCH', '/me/profile', { avatarUrl });

function trpcAs(m: Member) {
  return createTRPCClient<AppRouter>({ links: [httpLink({ url: `${app.url}/trpc`, headers: { authorization: `Bearer ${m.token}` } })] });
}

/** Every place another user, or the user's own apps, read the avatar of `m`. */
async function avatarEverywhere(m: Member, viewer: Member, listId: number) {
  const publicProfile = (await (await fetch(`${app.url}/api/public/v1/users/${m.username}`)).json()) as { avatarUrl: string };
  const collaborators = (await ok(call(viewer, 'GET', `/lists/${listId}`))).collaborators as { username: string; avatarUrl: string }[];
  const feed = (await changesOf(app, m.userId)).filter((c) => c.resource === 'profile').at(-1)?.data as { avatarUrl: string } | undefined;
  return {
    profile: (await ok(call(m, 'GET', '/me/profile'))).avatarUrl,
    me: (await ok(call(m, 'GET', '/me'))).avatarUrl,
    publicProfile: publicProfile.avatarUrl,
    collaborator: collaborators.find((c) => c.username === m.username)?.avatarUrl,
    feed: feed?.avatarUrl,
  };
}

const all = (value: string) => ({ profile: value, me: value, publicProfile: value, collaborator: value, feed: value });

let listId: number;
beforeAll(async () => {
  app = await startTestApp();
  alice = await member(app, 'avatar_alice', SCOPES);
  bob = await member(app, 'avatar_bob', SCOPES);
  // Alice collaborates on Bob's public list: her avatar shows among its collaborators.
  listId = (await ok(call(bob, 'POST', '/lists', { name: 'Shared', isPublic: true }))).id as number;
  await ok(call(bob, 'POST', `/lists/${listId}/collaborators`, { username: alice.username }));
  await ok(call(alice, 'POST', `/lists/${listId}/collaborators/accept`));
});
afterAll(() => app?.stop());

describe('an avatar URL set over REST', () => {
  it('is stored and shown everywhere in its canonical form: the quotes and spaces that would close an attribute percent-encoded', async () => {
    expect((await ok(patchAvatar(alice, ATTACK))).avatarUrl).toBe(ATTACK_CANONICAL);
    expect(await avatarEverywhere(alice, bob, listId)).toEqual(all(ATTACK_CANONICAL));
    const [stored] = await query<{ avatar_url: string }>(em(), { text: 'select avatar_url from app_user where id = $1', params: [alice.userId] });
    expect(stored!.avatar_url).toBe(ATTACK_CANONICAL);
  });

  it.each([
    ['an apostrophe, angle brackets and a backtick', "https://x.example/it's<b>`.png?q='x'#'f'", 'https://x.example/it%27s%3Cb%3E%60.png?q=%27x%27#%27f%27'],
    ['a host in capitals, the default port, dot segments and a tab', 'https://IMG.Example:443/a/../b\t.png', 'https://img.example/b.png'],
    ['no path', 'https://img.example', 'https://img.example/'],
  ])('canonicalises %s', async (_what, sent, stored) => {
    expect((await ok(patchAvatar(alice, sent))).avatarUrl).toBe(stored);
    // The canonical form is stored as is when sent again.
    expect((await ok(patchAvatar(alice, stored))).avatarUrl).toBe(stored);
  });

  it.each([
    ['javascript:', 'javascript:alert(1)', 'avatar URL must use https, not javascript:'],
    ['data:', 'data:image/svg+xml,<svg onload=alert(1)>', 'avatar URL must use https, not data:'],
    ['http:', 'http://img.example/a.png', 'avatar URL must use https, not http:'],
    ['credentials', 'https://user:secret@img.example/a.png', 'avatar URL must not carry a user name or password'],
    ['not a URL', '"><script>alert(1)</script>', 'avatar URL must be an absolute https URL of at most 2048 characters'],
  ])('refuses %s with 400 invalid_request and a clear message, keeping the avatar it had', async (_what, sent, message) => {
    await ok(patchAvatar(alice, 'https://img.example/kept.png'));
    const res = await patchAvatar(alice, sent);
    expectError(res, 400, 'invalid_request');
    expect(res.body.message).toBe(message);
    expect((await ok(call(alice, 'GET', '/me/profile'))).avatarUrl).toBe('https://img.example/kept.png');
  });

  it('caps the length after percent-encoding: 2048 characters of canonical form', async () => {
    const base = 'https://img.example/';
    const exact = base + 'a'.repeat(2048 - base.length);
    expect((await ok(patchAvatar(alice, exact))).avatarUrl).toBe(exact);
    // 2044 characters as sent, 2056 once each of its six quotes is %22.
    const grows = base + '"'.repeat(6) + 'a'.repeat(2048 - base.length - 10);
    expect(grows.length).toBe(2044);
    const res = await patchAvatar(alice, grows);
    expectError(res, 400, 'invalid_request');
    expect(res.body.message).toBe('avatar URL must be at most 2048 characters once percent-encoded (this one has 2056)');
  });
});

describe('an avatar URL set over /trpc', () => {
  it('is stored canonical; javascript: and data: are refused with invalid_request', async () => {
    const client = trpcAs(alice);
    expect((await client.platform.accountProfile.updateProfile.mutate({ avatarUrl: ATTACK })).avatarUrl).toBe(ATTACK_CANONICAL);
    expect(await avatarEverywhere(alice, bob, listId)).toEqual(all(ATTACK_CANONICAL));
    for (const bad of ['javascript:alert(1)', 'data:text/html,<script>alert(1)</script>']) {
      const err = await client.platform.accountProfile.updateProfile.mutate({ avatarUrl: bad }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(TRPCClientError);
      expect((err as TRPCClientError<AppRouter>).data).toMatchObject({ error: 'invalid_request', httpStatus: 400 });
      expect((err as TRPCClientError<AppRouter>).message).toMatch(/^avatar URL must use https, not (javascript|data):$/);
    }
  });
});

describe('the export', () => {
  it('carries the canonical form', async () => {
    const carol = await exporter(app, 'avatar_carol');
    await ok(patchAvatar(carol, ATTACK));
    const doc = await exportOf(app, carol.token);
    expect(doc.status).toBe(200);
    expect((doc.body.profile as { avatar_url: string }).avatar_url).toBe(ATTACK_CANONICAL);
  });
});

describe('the migration', () => {
  it('brings avatar URLs stored as sent to their canonical form, and removes the ones the rule now refuses', async () => {
    const dave = await member(app, 'avatar_dave', SCOPES);
    const erin = await member(app, 'avatar_erin', SCOPES);
    const fred = await member(app, 'avatar_fred', SCOPES);
    const gina = await member(app, 'avatar_gina', SCOPES);
    const stored: [Member, string | null, string | null][] = [
      [dave, ATTACK, ATTACK_CANONICAL],
      [erin, 'https://user:pw@img.example/a.png', null],
      [fred, 'https://img.example/fine.png', 'https://img.example/fine.png'],
      [gina, null, null],
    ];
    // As main stored them: written as sent.
    for (const [m, raw] of stored) await query(em(), { text: 'update app_user set avatar_url = $1 where id = $2', params: [raw, m.userId] });
    expect((await ok(call(dave, 'GET', '/me/profile'))).avatarUrl).toBe(ATTACK);

    const { orm } = app.db;
    expect((await orm.migrator.down({ migrations: [MIGRATION] })).map((m) => m.name)).toEqual([MIGRATION]);
    expect((await orm.migrator.up({ migrations: [MIGRATION] })).map((m) => m.name)).toEqual([MIGRATION]);
    for (const [m, , canonical] of stored) expect((await ok(call(m, 'GET', '/me/profile'))).avatarUrl).toBe(canonical);
  });
});
