// A private profile looks exactly like a username that does not exist to everyone outside the people of
// the lists the user owns or belongs to (docs/decisions.md, "Who sees a private profile"), over real
// HTTP, in every place another user's name, avatar or list can appear: the title detail's featured
// lists, a list reached by id (detail, items, like), a list's collaborators, invitations by username,
// the list-liked notification, the public profile and the community's top lists. Each place: absent (or
// "Someone") for others while private, back when the profile is public again, and unchanged for the user
// and the people of their lists (GET /me/lists, the title detail's own lists, pending invitations).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setFeatured } from '../src/core/lists/featured.ts';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { expectError } from './helpers/envelope.ts';
import * as http from './helpers/http.ts';
import { member, ok, platform, seedCatalog, SPIRITED_AWAY, type Member } from './helpers/seed.ts';

let app: TestApp;
const SCOPES = ['profile:read', 'profile:write', 'lists:read', 'lists:write', 'notifications:read'];
const em = () => app.db.orm.em.fork();
// A POST without a body still sends `{}`: the facade asks every POST for a JSON content type.
const call = (m: Member, method: string, path: string, body?: unknown) => platform(app, m.token, method, path, body ?? (method === 'POST' ? {} : undefined));

async function setPrivacy(m: Member, privacy: 'public' | 'private') {
  expect((await ok(call(m, 'PATCH', '/me/profile', { privacy }))).privacy).toBe(privacy);
}

async function newList(m: Member, name: string, opts: { isPublic?: boolean; spirited?: boolean } = {}): Promise<number> {
  const id = (await ok(call(m, 'POST', '/lists', { name, isPublic: opts.isPublic ?? true }))).id as number;
  if (opts.spirited) await ok(call(m, 'POST', `/lists/${id}/items`, { items: [{ type: 'movie', movieDbId: SPIRITED_AWAY }] }));
  return id;
}

async function join(owner: Member, listId: number, guest: Member, accept = true) {
  expect((await ok(call(owner, 'POST', `/lists/${listId}/collaborators`, { username: guest.username }))).status).toBe('invited');
  if (accept) await ok(call(guest, 'POST', `/lists/${listId}/collaborators/accept`));
}

const titleDetail = (m: Member) => ok(call(m, 'GET', `/title/movie/${SPIRITED_AWAY}`));
const featuredIds = async (m: Member) => ((await titleDetail(m)).featuredLists as { id: number }[]).map((l) => l.id);
const collaboratorNames = async (m: Member, listId: number) => ((await ok(call(m, 'GET', `/lists/${listId}`))).collaborators as { username: string }[]).map((c) => c.username);
const publicGet = (path: string) => http.call(app, `/api/public/v1${path}`);

/** The 404 of a list id nobody has, its message with the id written as N. */
async function missingList(m: Member, path: (id: number) => string, method = 'GET') {
  const res = await call(m, method, path(2_000_000_000));
  expectError(res, 404, 'not_found');
  return String(res.body.message).replace('2000000000', 'N');
}

beforeAll(async () => {
  app = await startTestApp({ CATALOG_CACHE_SECONDS: '0' });
  await seedCatalog(app, { shows: 1 });
});
afterAll(() => app?.stop());

describe('featured lists in the title detail', () => {
  it('leave out a private owner\'s featured list for everyone, its owner and collaborators too; back when public', async () => {
    const owner = await member(app, 'feat_owner', SCOPES);
    const friend = await member(app, 'feat_friend', SCOPES);
    const stranger = await member(app, 'feat_stranger', SCOPES);
    const listId = await newList(owner, 'Ghibli picks', { spirited: true });
    await join(owner, listId, friend);
    await setFeatured(em(), String(listId), true);
    expect(await featuredIds(stranger)).toContain(listId);
    const shown = ((await titleDetail(stranger)).featuredLists as { id: number; ownerUsername: string }[]).find((l) => l.id === listId);
    expect(shown?.ownerUsername).toBe('feat_owner');

    await setPrivacy(owner, 'private');
    for (const m of [stranger, owner, friend]) expect(await featuredIds(m)).not.toContain(listId);
    // The owner and the collaborator still have the list among their own, marked featured, with its owner's name.
    for (const m of [owner, friend]) {
      const mine = ((await titleDetail(m)).userLists as { id: number; isFeatured: boolean; ownerUsername: string; containsItemId: number | null }[]).find((l) => l.id === listId);
      expect(mine).toMatchObject({ isFeatured: true, ownerUsername: 'feat_owner', containsItemId: expect.any(Number) });
    }

    await setPrivacy(owner, 'public');
    expect(await featuredIds(stranger)).toContain(listId);
  });
});

describe('a list reached by id', () => {
  it('of a private profile is 404 to a stranger exactly like a missing list (detail, items, like); its people still read it', async () => {
    const owner = await member(app, 'byid_owner', SCOPES);
    const friend = await member(app, 'byid_friend', SCOPES);
    const invitee = await member(app, 'byid_invitee', SCOPES);
    const stranger = await member(app, 'byid_stranger', SCOPES);
    const listId = await newList(owner, 'Public list, private owner', { spirited: true });
    await join(owner, listId, friend);
    await join(owner, listId, invitee, false);
    expect((await ok(call(stranger, 'GET', `/lists/${listId}`))).ownerUsername).toBe('byid_owner');

    await setPrivacy(owner, 'private');
    const reads: [string, (id: number) => string][] = [
      ['GET', (id) => `/lists/${id}`],
      ['GET', (id) => `/lists/${id}/items`],
      ['POST', (id) => `/lists/${id}/like`],
      ['DELETE', (id) => `/lists/${id}/like`],
    ];
    for (const [method, path] of reads) {
      const res = await call(stranger, method, path(listId));
      expectError(res, 404, 'not_found');
      expect(String(res.body.message).replace(String(listId), 'N')).toBe(await missingList(stranger, path, method));
    }
    // Owner, collaborator and invited user: as before, with the owner's name.
    expect(await ok(call(owner, 'GET', `/lists/${listId}`))).toMatchObject({ isOwner: true, ownerUsername: 'byid_owner', itemCount: 1 });
    expect(await ok(call(friend, 'GET', `/lists/${listId}`))).toMatchObject({ isCollaborator: true, ownerUsername: 'byid_owner' });
    expect(await ok(call(invitee, 'GET', `/lists/${listId}`))).toMatchObject({ isCollaborator: false, ownerUsername: 'byid_owner' });
    expect(((await ok(call(friend, 'GET', `/lists/${listId}/items`))).items as unknown[]).length).toBe(1);
    expect((await ok(call(friend, 'POST', `/lists/${listId}/like`))).isLiked).toBe(true);

    await setPrivacy(owner, 'public');
    expect(await ok(call(stranger, 'GET', `/lists/${listId}`))).toMatchObject({ ownerUsername: 'byid_owner', isOwner: false, isCollaborator: false });
    expect((await ok(call(stranger, 'POST', `/lists/${listId}/like`))).likeCount).toBe(2);
  });

  it('GET /me/lists, the title detail\'s own lists and pending invitations keep a private owner\'s name for the people of the list', async () => {
    const owner = await member(app, 'mine_owner', SCOPES);
    const friend = await member(app, 'mine_friend', SCOPES);
    const invitee = await member(app, 'mine_invitee', SCOPES);
    const listId = await newList(owner, 'Shared with friends', { isPublic: false, spirited: true });
    await join(owner, listId, friend);
    await join(owner, listId, invitee, false);
    await setPrivacy(owner, 'private');
    const mine = ((await ok(call(friend, 'GET', '/me/lists'))).items as { id: number; ownerUsername: string }[]).find((l) => l.id === listId);
    expect(mine?.ownerUsername).toBe('mine_owner');
    const own = ((await titleDetail(friend)).userLists as { id: number; ownerUsername: string }[]).find((l) => l.id === listId);
    expect(own?.ownerUsername).toBe('mine_owner');
    expect((await ok(call(invitee, 'GET', '/me/list-invitations'))).items).toEqual([{ listId, name: 'Shared with friends', ownerUsername: 'mine_owner', invitedAt: expect.any(String) }]);
    // The owner's own view is unchanged.
    expect(((await ok(call(owner, 'GET', '/me/lists'))).items as { id: number }[]).map((l) => l.id)).toContain(listId);
    await setPrivacy(owner, 'public');
  });
});

describe('collaborators of a list', () => {
  it('leave out a private collaborator for strangers; the owner, the collaborators and invited users see everyone', async () => {
    const owner = await member(app, 'collab_owner', SCOPES);
    const hidden = await member(app, 'collab_hidden', SCOPES);
    const mate = await member(app, 'collab_mate', SCOPES);
    const invitee = await member(app, 'collab_invitee', SCOPES);
    const stranger = await member(app, 'collab_stranger', SCOPES);
    const listId = await newList(owner, 'Crew picks');
    await join(owner, listId, hidden);
    await join(owner, listId, mate);
    await join(owner, listId, invitee, false);
    await ok(call(hidden, 'PATCH', '/me/profile', { avatarUrl: 'https://img.example/hidden.png' }));
    const everyone = ['collab_hidden', 'collab_mate'];
    expect(await collaboratorNames(stranger, listId)).toEqual(everyone);

    await setPrivacy(hidden, 'private');
    const seen = await ok(call(stranger, 'GET', `/lists/${listId}`));
    expect(seen.collaborators).toEqual([{ userId: mate.userId, username: 'collab_mate', avatarUrl: null }]);
    expect(seen.isCollaborative).toBe(true);
    for (const m of [owner, hidden, mate, invitee]) expect(await collaboratorNames(m, listId)).toEqual(everyone);
    expect(((await ok(call(owner, 'GET', `/lists/${listId}`))).collaborators as unknown[])[0]).toEqual({ userId: hidden.userId, username: 'collab_hidden', avatarUrl: 'https://img.example/hidden.png' });

    await setPrivacy(hidden, 'public');
    expect(await collaboratorNames(stranger, listId)).toEqual(everyone);
  });
});

describe('inviting by username', () => {
  it('answers a private username exactly like one nobody has, unless the two already share a list', async () => {
    const hidden = await member(app, 'inv_hidden', SCOPES);
    const host = await member(app, 'inv_host', SCOPES);
    const mate = await member(app, 'inv_mate', SCOPES);
    const stranger = await member(app, 'inv_stranger', SCOPES);
    // hidden collaborates on host's list, beside mate.
    const shared = await newList(host, 'Host list', { isPublic: false });
    await join(host, shared, hidden);
    await join(host, shared, mate);
    const strangerList = await newList(stranger, 'Stranger list');
    await setPrivacy(hidden, 'private');

    const invite = (m: Member, listId: number, username: string) => call(m, 'POST', `/lists/${listId}/collaborators`, { username });
    const privateAnswer = await invite(stranger, strangerList, 'inv_hidden');
    const unknownAnswer = await invite(stranger, strangerList, 'inv_nobody');
    expectError(privateAnswer, 404, 'not_found');
    expectError(unknownAnswer, 404, 'not_found');
    expect(String(privateAnswer.body.message).replace('inv_hidden', 'X')).toBe(String(unknownAnswer.body.message).replace('inv_nobody', 'X'));
    // Any case: still nobody.
    expectError(await invite(stranger, strangerList, 'INV_HIDDEN'), 404, 'not_found');

    // The owner of a list hidden is on, and a fellow collaborator, find them.
    expect(await ok(invite(host, await newList(host, 'Second host list'), 'INV_HIDDEN'))).toMatchObject({ username: 'inv_hidden', status: 'invited' });
    expect(await ok(invite(mate, await newList(mate, 'Mate list'), 'inv_hidden'))).toMatchObject({ username: 'inv_hidden', status: 'invited' });
    // And hidden, private, finds anyone public.
    expect(await ok(invite(hidden, await newList(hidden, 'Hidden list'), 'inv_stranger'))).toMatchObject({ status: 'invited' });

    await setPrivacy(hidden, 'public');
    expect(await ok(invite(stranger, strangerList, 'inv_hidden'))).toMatchObject({ username: 'inv_hidden', status: 'invited' });
  });
});

describe('the list-liked notification', () => {
  type Wire = { kind: string; title: string; body: string; data: Record<string, unknown> };
  const likes = async (m: Member) => ((await ok(call(m, 'GET', '/me/notifications'))).items as Wire[]).filter((n) => n.kind === 'list_liked');

  it('does not name a private liker who is not one of the list\'s people; names a public one, and one of the list\'s people', async () => {
    const fan = await member(app, 'like_hidden_fan', SCOPES);
    const owner = await member(app, 'like_owner', SCOPES);
    const first = await newList(owner, 'First');
    const second = await newList(owner, 'Second');
    const together = await newList(owner, 'Together');
    await join(owner, together, fan);
    await setPrivacy(fan, 'private');

    await ok(call(fan, 'POST', `/lists/${first}/like`));
    expect(await likes(owner)).toEqual([
      { kind: 'list_liked', title: 'Someone liked your list', body: 'Someone liked "First".', data: { listId: first, listName: 'First', fromUsername: null }, read: false, readAt: null, id: expect.any(String), createdAt: expect.any(String) },
    ]);
    // A collaborator of the list is one of its people: named.
    await ok(call(fan, 'POST', `/lists/${together}/like`));
    expect((await likes(owner))[0]).toMatchObject({ title: 'like_hidden_fan liked your list', data: { listId: together, fromUsername: 'like_hidden_fan' } });

    await setPrivacy(fan, 'public');
    await ok(call(fan, 'POST', `/lists/${second}/like`));
    expect((await likes(owner))[0]).toMatchObject({
      title: 'like_hidden_fan liked your list',
      body: 'like_hidden_fan (@like_hidden_fan) liked "Second".',
      data: { listId: second, listName: 'Second', fromUsername: 'like_hidden_fan' },
    });
  });
});

describe('the public API', () => {
  it('answers a private profile 404 like an unknown name and leaves its lists out of the top lists; back when public', async () => {
    const owner = await member(app, 'pubapi_owner', SCOPES);
    const fan = await member(app, 'pubapi_fan', SCOPES);
    const listId = await newList(owner, 'Much liked');
    await ok(call(fan, 'POST', `/lists/${listId}/like`));
    const topIds = async () => ((await publicGet('/community/overview')).body.topLists as { id: number }[]).map((l) => l.id);
    expect((await publicGet('/users/pubapi_owner')).status).toBe(200);
    expect(await topIds()).toContain(listId);

    await setPrivacy(owner, 'private');
    const hidden = await publicGet('/users/pubapi_owner');
    const unknown = await publicGet('/users/pubapi_nobody');
    expect(hidden.status).toBe(404);
    expect(unknown.status).toBe(404);
    expect(Object.keys(hidden.body)).toEqual(['message']);
    expect(String(hidden.body.message).replace('pubapi_owner', 'X')).toBe(String(unknown.body.message).replace('pubapi_nobody', 'X'));
    expect(await topIds()).not.toContain(listId);

    await setPrivacy(owner, 'public');
    expect((await publicGet('/users/pubapi_owner')).status).toBe(200);
    expect(await topIds()).toContain(listId);
  });
});
