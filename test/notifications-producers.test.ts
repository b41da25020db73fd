// The producers of notifications, driven by real events over HTTP: a collaborator invitation notifies
// the invitee once; a like notifies the list's owner once per liker (liking twice, or unlike + like, does
// not notify again; liking one's own list does not notify); the new-episode job notifies each follower of
// a show once per aired episode however often it runs, and only followers; a kind turned off records
// nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { query } from '../src/core/db/sql.ts';
import { notifyNewEpisodes } from '../src/core/notifications/new-episodes.ts';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { changesOf } from './helpers/change-log.ts';
import { member, platform, type Member } from './helpers/seed.ts';

let app: TestApp;
const SCOPES = ['notifications:read', 'notifications:write', 'lists:read', 'lists:write', 'ratings:read', 'ratings:write', 'history:read', 'history:write'];
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const em = () => app.db.orm.em.fork();
const call = (m: Member, method: string, path: string, body?: unknown) => platform(app, m.token, method, path, body ?? (method === 'POST' ? {} : undefined));

type Wire = { id: string; kind: string; title: string; body: string; data: Record<string, unknown>; read: boolean; readAt: string | null; createdAt: string };

async function inbox(m: Member): Promise<Wire[]> {
  const res = await call(m, 'GET', '/me/notifications');
  expect(res.status).toBe(200);
  return (res.body as { items: Wire[] }).items;
}

async function unread(m: Member) {
  return (await call(m, 'GET', '/me/notifications/unread-count')).body;
}

async function createList(m: Member, name: string, isPublic = true) {
  const res = await call(m, 'POST', '/lists', { name, isPublic });
  expect(res.status).toBe(200);
  return (res.body as { id: number }).id;
}

const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const DAY_MS = 86_400_000;

beforeAll(async () => {
  app = await startTestApp();
});

afterAll(async () => {
  await app?.stop();
});

describe('list invitations', () => {
  it('notifies the invitee once per invitation, in the exact shape', async () => {
    const owner = await member(app, 'inv_owner', SCOPES);
    const guest = await member(app, 'inv_guest', SCOPES);
    await query(em(), { text: `update app_user set display_name = 'Owner Person' where id = $1`, params: [owner.userId] });
    const listId = await createList(owner, 'Heist films', false);
    expect((await call(owner, 'POST', `/lists/${listId}/collaborators`, { username: 'inv_guest' })).status).toBe(200);
    const items = await inbox(guest);
    expect(items).toEqual([
      {
        id: expect.stringMatching(/^[1-9][0-9]*$/),
        kind: 'list_invitation',
        title: 'Owner Person invited you to a list',
        body: 'Owner Person (@inv_owner) invited you to collaborate on "Heist films".',
        data: { listId, listName: 'Heist films', fromUsername: 'inv_owner' },
        read: false,
        readAt: null,
        createdAt: expect.stringMatching(ISO),
      },
    ]);
    expect(await unread(guest)).toEqual({ unread: 1 });
    // Inviting again while the invitation stands: no second notification.
    expect((await call(owner, 'POST', `/lists/${listId}/collaborators`, { username: 'inv_guest' })).status).toBe(200);
    expect(await inbox(guest)).toHaveLength(1);
    // The owner is told nothing; the invitee's change feed has the notification.
    expect(await inbox(owner)).toEqual([]);
    expect((await changesOf(app, guest.userId)).filter((c) => c.resource === 'notifications').map((c) => c.data)).toEqual([items[0]]);
    // A new invitation after removal is a new event.
    expect((await call(owner, 'DELETE', `/lists/${listId}/collaborators/inv_guest`)).status).toBe(200);
    expect((await call(owner, 'POST', `/lists/${listId}/collaborators`, { username: 'inv_guest' })).status).toBe(200);
    expect(await inbox(guest)).toHaveLength(2);
  });

  it('records nothing when the invitee turned invitations off, and nothing on a failed invite', async () => {
    const owner = await member(app, 'inv_owner2', SCOPES);
    const guest = await member(app, 'inv_quiet', SCOPES);
    await call(guest, 'PATCH', '/me/notification-preferences', { list_invitation: { inApp: false } });
    const listId = await createList(owner, 'Quiet list');
    expect((await call(owner, 'POST', `/lists/${listId}/collaborators`, { username: 'inv_quiet' })).status).toBe(200);
    expect(await inbox(guest)).toEqual([]);
    expect((await call(owner, 'POST', `/lists/${listId}/collaborators`, { username: 'inv_owner2' })).status).toBe(409);
    expect(await inbox(owner)).toEqual([]);
  });
});

describe('list likes', () => {
  it('notifies the owner once per liker, however often they like and unlike', async () => {
    const owner = await member(app, 'like_owner', SCOPES);
    const fan = await member(app, 'like_fan', SCOPES);
    const fan2 = await member(app, 'like_fan2', SCOPES);
    const listId = await createList(owner, 'Comfort shows');
    expect((await call(fan, 'POST', `/lists/${listId}/like`)).status).toBe(200);
    const first = await inbox(owner);
    expect(first).toEqual([
      {
        id: expect.any(String),
        kind: 'list_liked',
        title: 'like_fan liked your list',
        body: 'like_fan (@like_fan) liked "Comfort shows".',
        data: { listId, listName: 'Comfort shows', fromUsername: 'like_fan' },
        read: false,
        readAt: null,
        createdAt: expect.stringMatching(ISO),
      },
    ]);
    // Liking twice, and unlike + like, do not notify again.
    expect((await call(fan, 'POST', `/lists/${listId}/like`)).status).toBe(200);
    expect((await call(fan, 'DELETE', `/lists/${listId}/like`)).status).toBe(200);
    expect((await call(fan, 'POST', `/lists/${listId}/like`)).status).toBe(200);
    expect(await inbox(owner)).toEqual(first);
    expect(await unread(owner)).toEqual({ unread: 1 });
    // Another liker is another notification; the owner liking their own list is none.
    expect((await call(fan2, 'POST', `/lists/${listId}/like`)).status).toBe(200);
    expect((await call(owner, 'POST', `/lists/${listId}/like`)).status).toBe(200);
    expect((await inbox(owner)).map((n) => n.data.fromUsername)).toEqual(['like_fan2', 'like_fan']);
    // Likers are told nothing.
    expect(await inbox(fan)).toEqual([]);
  });

  it('records nothing for an owner who turned likes off', async () => {
    const owner = await member(app, 'like_quiet', SCOPES);
    const fan = await member(app, 'like_fan3', SCOPES);
    await call(owner, 'PATCH', '/me/notification-preferences', { list_liked: { inApp: false } });
    const listId = await createList(owner, 'Quiet likes');
    expect((await call(fan, 'POST', `/lists/${listId}/like`)).status).toBe(200);
    expect(await inbox(owner)).toEqual([]);
    expect((await changesOf(app, owner.userId)).filter((c) => c.resource === 'notifications')).toEqual([]);
  });
});

describe('new episodes', () => {
  const SHOW = 8_800_001;
  const today = Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth(), new Date().getUTCDate());
  const airs = today + 2 * DAY_MS;

  /** A show of our own with an old episode, one airing in two days and one in twelve. */
  async function makeShow() {
    const [t] = await query<{ id: string }>(em(), {
      text: `insert into title (type, movie_db_id, category, name, year, source) values ('show', $1, 'show', 'Night Harbour', 2020, 'test') returning id`,
      params: [SHOW],
    });
    await query(em(), {
      text: `insert into episode (title_id, season_number, episode_number, name, air_date) values
        ($1, 1, 1, 'Old One', '2001-01-01'), ($1, 1, 2, 'The Return', $2::date), ($1, 1, 3, 'Later', $3::date)`,
      params: [t!.id, day(airs), day(airs + 10 * DAY_MS)],
    });
  }

  it('notifies each follower once per aired episode, however often the job runs', async () => {
    await makeShow();
    const watcher = await member(app, 'ep_watcher', SCOPES);
    const planner = await member(app, 'ep_planner', SCOPES);
    const fav = await member(app, 'ep_fav', SCOPES);
    const listed = await member(app, 'ep_watchlist', SCOPES);
    const dropper = await member(app, 'ep_dropper', SCOPES);
    const stranger = await member(app, 'ep_stranger', SCOPES);
    const seen = await member(app, 'ep_seen', SCOPES);
    const quiet = await member(app, 'ep_quiet', SCOPES);
    const status = (m: Member, s: string) => call(m, 'PUT', `/show-status/show/${SHOW}`, { status: s });
    expect((await status(watcher, 'watching')).status).toBe(200);
    expect((await status(planner, 'planned')).status).toBe(200);
    expect((await call(fav, 'POST', '/favourites', { type: 'show', movieDbId: SHOW })).status).toBe(200);
    const watchlistId = ((await call(listed, 'GET', '/me/watchlist')).body as { id: number }).id;
    expect((await call(listed, 'POST', `/lists/${watchlistId}/items`, { items: [{ type: 'show', movieDbId: SHOW }] })).status).toBe(200);
    // A favourite whose status is dropped is not followed.
    expect((await call(dropper, 'POST', '/favourites', { type: 'show', movieDbId: SHOW })).status).toBe(200);
    expect((await status(dropper, 'dropped')).status).toBe(200);
    // An episode already in the history is not announced.
    expect((await status(seen, 'watching')).status).toBe(200);
    await query(em(), {
      text: `insert into watch_history (user_id, title_id, episode_id, season_number, episode_number, watched_at, source)
        select $1, e.title_id, e.id, 1, 2, now(), 'api' from episode e join title t on t.id = e.title_id where t.movie_db_id = $2 and t.type = 'show' and e.episode_number = 2`,
      params: [seen.userId, SHOW],
    });
    expect((await status(quiet, 'watching')).status).toBe(200);
    await call(quiet, 'PATCH', '/me/notification-preferences', { new_episode: { inApp: false } });

    // Before the air date: nothing (and the old episode, aired before anyone followed, never).
    expect(await notifyNewEpisodes(em(), new Date(today + 12 * 3600_000))).toBe(0);
    // On the air date: one each; again: none.
    expect(await notifyNewEpisodes(em(), new Date(airs + 60_000))).toBe(4);
    expect(await notifyNewEpisodes(em(), new Date(airs + 3600_000))).toBe(0);
    expect(await notifyNewEpisodes(em(), new Date(airs + 3 * DAY_MS))).toBe(0);
    for (const m of [watcher, planner, fav, listed]) {
      expect(await inbox(m)).toEqual([
        {
          id: expect.any(String),
          kind: 'new_episode',
          title: 'New episode of Night Harbour',
          body: `S01E02 "The Return" aired on ${day(airs)}.`,
          data: { type: 'show', movieDbId: SHOW, punchplayId: `show-${SHOW}`, showName: 'Night Harbour', season: 1, episode: 2, episodeName: 'The Return', airDate: day(airs) },
          read: false,
          readAt: null,
          createdAt: expect.stringMatching(ISO),
        },
      ]);
      expect(await unread(m)).toEqual({ unread: 1 });
    }
    for (const m of [dropper, stranger, seen, quiet]) expect(await inbox(m)).toEqual([]);

    // The next episode, ten days later (a run a week after its air date is too late): announced once more
    // to each follower, the one who had seen episode 2 included.
    expect(await notifyNewEpisodes(em(), new Date(airs + 17 * DAY_MS + 60_000))).toBe(0);
    expect(await notifyNewEpisodes(em(), new Date(airs + 10 * DAY_MS + 60_000))).toBe(5);
    expect(await notifyNewEpisodes(em(), new Date(airs + 11 * DAY_MS))).toBe(0);
    expect((await inbox(watcher)).map((n) => n.data.episode)).toEqual([3, 2]);
    expect((await inbox(seen)).map((n) => n.data.episode)).toEqual([3]);
    for (const m of [dropper, stranger]) expect(await inbox(m)).toEqual([]);
    // Turned back on: a later run records what is still due for the user.
    await call(quiet, 'PATCH', '/me/notification-preferences', { new_episode: { inApp: true } });
    expect(await notifyNewEpisodes(em(), new Date(airs + 11 * DAY_MS))).toBe(1);
    expect((await inbox(quiet)).map((n) => n.data.episode)).toEqual([3]);
  });
});
