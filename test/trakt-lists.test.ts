// Trakt's personal lists over HTTP: create, read (by id and slug), update, delete; items read (paged,
// by type), added and removed with Trakt's added/existing/not_found answers; who may read and write
// (owner, collaborator, stranger, private profile); the item limit as 420; and the same lists seen from
// the platform API (GET /lists/{id}, the change feed) and back.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { query } from '../src/core/db/sql.ts';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { FIRST_SHOW, member, platform, seedCatalog, SPIRITED_AWAY, tokenWith, type Member } from './helpers/seed.ts';
import { readFeed, settled } from './helpers/sync-client.ts';
import { pagination, trakt } from './helpers/trakt.ts';

let app: TestApp;
let alice: Member;
let bob: Member;
let carol: Member;
const em = () => app.db.orm.em.fork();
const RW = ['lists:read', 'lists:write'];
const TOY_STORY = 862;
const keys = (o: unknown) => Object.keys(o as object).sort();
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const LIST_KEYS = ['allow_comments', 'comment_count', 'created_at', 'description', 'display_numbers', 'ids', 'item_count', 'likes', 'name', 'privacy', 'share_link', 'sort_by', 'sort_how', 'type', 'updated_at', 'user'];
const ZERO = { movies: 0, shows: 0, seasons: 0, episodes: 0, people: 0 };
const NONE = { movies: [], shows: [], seasons: [], episodes: [], people: [] };

type TraktList = { ids: { trakt: number; slug: string } } & Record<string, unknown>;

async function create(m: Member, body: Record<string, unknown>): Promise<TraktList> {
  const res = await trakt(app, m, 'POST', '/users/me/lists', body);
  expect(res.status).toBe(201);
  return res.body as TraktList;
}

beforeAll(async () => {
  app = await startTestApp();
  await seedCatalog(app, { shows: 3 });
  alice = await member(app, 'alice', RW);
  bob = await member(app, 'bob', RW);
  carol = await member(app, 'carol', RW);
});
afterAll(() => app?.stop());

describe('create, read, update, delete', () => {
  it('POST /users/me/lists: 201 with Trakt\'s list; privacy public and link are public lists, private and friends private', async () => {
    const list = await create(alice, { name: 'Studio Ghibli Favourites!', description: 'The best', privacy: 'public', display_numbers: true, allow_comments: false, sort_by: 'rank', sort_how: 'asc' });
    expect(keys(list)).toEqual(LIST_KEYS);
    expect(list).toMatchObject({
      name: 'Studio Ghibli Favourites!', description: 'The best', privacy: 'public', type: 'personal', display_numbers: false, allow_comments: false,
      sort_by: 'rank', sort_how: 'asc', item_count: 0, comment_count: 0, likes: 0,
      user: { username: 'alice', private: false, deleted: false, name: expect.any(String), vip: false, vip_ep: false, director: false, ids: { slug: 'alice' } },
    });
    expect(list.ids).toEqual({ trakt: expect.any(Number), slug: 'studio-ghibli-favourites' });
    expect(list.share_link).toBe(`${app.url}/lists/${list.ids.trakt}`);
    expect(list.created_at).toMatch(ISO);
    expect(list.updated_at).toMatch(ISO);
    for (const [privacy, shown] of [['link', 'public'], ['friends', 'private'], ['private', 'private']] as const) {
      expect((await create(alice, { name: `As ${privacy}`, privacy })).privacy).toBe(shown);
    }
    const plain = await create(alice, { name: 'Plain' });
    expect(plain).toMatchObject({ privacy: 'private', description: null });
  });

  it('422 for a body Trakt would refuse; 401 without a token; 403 without lists:write or for another user', async () => {
    for (const body of [{}, { name: '' }, { name: 'x', privacy: 'secret' }, { name: 'x'.repeat(101) }, { name: 'x', sort_how: 'up' }]) {
      const res = await trakt(app, alice, 'POST', '/users/me/lists', body);
      expect(res.status).toBe(422);
      expect(res.body).toEqual({ error: 'invalid_request', error_description: expect.any(String) });
    }
    expect((await trakt(app, { clientId: alice.clientId }, 'POST', '/users/me/lists', { name: 'x' })).status).toBe(401);
    const readOnly = await tokenWith(app, alice, ['lists:read']);
    const res = await trakt(app, { ...alice, token: readOnly }, 'POST', '/users/me/lists', { name: 'x' });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ error: 'insufficient_scope', error_description: expect.any(String) });
    expect((await trakt(app, alice, 'POST', '/users/bob/lists', { name: 'x' })).status).toBe(403);
  });

  it('GET one list by id or slug; a private list is 404 to others; without a token a public list reads', async () => {
    const pub = await create(bob, { name: 'Bob public', privacy: 'public' });
    const priv = await create(bob, { name: 'Bob private' });
    for (const id of [pub.ids.trakt, 'bob-public']) {
      const res = await trakt(app, { clientId: alice.clientId }, 'GET', `/users/bob/lists/${id}`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual(pub);
    }
    expect((await trakt(app, bob, 'GET', '/users/me/lists/bob-private')).body).toEqual(priv);
    for (const path of [`/users/bob/lists/${priv.ids.trakt}`, '/users/bob/lists/bob-private', '/users/bob/lists/nothing-called-this', `/users/alice/lists/${pub.ids.trakt}`]) {
      const res = await trakt(app, alice, 'GET', path);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ error: 'not_found', error_description: expect.any(String) });
    }
  });

  it('PUT updates name, description and privacy (slug follows the name, the id stays); only the owner (404 for others); 422 for a bad body', async () => {
    const list = await create(alice, { name: 'To rename' });
    const res = await trakt(app, alice, 'PUT', `/users/me/lists/${list.ids.trakt}`, { name: 'Renamed', description: 'Now described', privacy: 'public', display_numbers: true });
    expect(res.status).toBe(200);
    expect(keys(res.body)).toEqual(LIST_KEYS);
    expect(res.body).toMatchObject({ name: 'Renamed', description: 'Now described', privacy: 'public', ids: { trakt: list.ids.trakt, slug: 'renamed' } });
    // Settings the service does not keep change nothing and still answer the list.
    expect((await trakt(app, alice, 'PUT', '/users/alice/lists/renamed', { sort_by: 'added' })).body).toMatchObject({ name: 'Renamed' });
    expect((await trakt(app, bob, 'PUT', `/users/alice/lists/${list.ids.trakt}`, { name: 'Mine now' })).status).toBe(404);
    expect((await trakt(app, alice, 'PUT', `/users/me/lists/${list.ids.trakt}`, { privacy: 'everyone' })).status).toBe(422);
    expect((await trakt(app, { clientId: alice.clientId }, 'PUT', `/users/alice/lists/${list.ids.trakt}`, { name: 'x' })).status).toBe(401);
  });

  it('DELETE: 204, then 404; a stranger 404 and the list stays', async () => {
    const list = await create(alice, { name: 'Short lived', privacy: 'public' });
    expect((await trakt(app, bob, 'DELETE', `/users/alice/lists/${list.ids.trakt}`)).status).toBe(404);
    const res = await trakt(app, alice, 'DELETE', `/users/me/lists/${list.ids.trakt}`);
    expect(res.status).toBe(204);
    expect(res.body).toEqual({});
    expect((await trakt(app, alice, 'GET', `/users/me/lists/${list.ids.trakt}`)).status).toBe(404);
    expect((await trakt(app, alice, 'DELETE', `/users/me/lists/${list.ids.trakt}`)).status).toBe(404);
  });
});

describe('GET /users/{id}/lists', () => {
  it('the owner\'s lists (a list made on the platform included, the watchlist not), paged; others see only the public ones', async () => {
    const dave = await member(app, 'dave', RW);
    const made = await platform(app, dave.token, 'POST', '/lists', { name: 'Made on the platform', isPublic: true });
    expect(made.status).toBe(200);
    expect((await platform(app, dave.token, 'GET', '/me/watchlist')).status).toBe(200);
    await create(dave, { name: 'Second', privacy: 'private' });
    await create(dave, { name: 'Third', privacy: 'public' });

    const all = await trakt(app, dave, 'GET', '/users/me/lists');
    expect(all.status).toBe(200);
    expect((all.body as unknown as TraktList[]).map((l) => l.name)).toEqual(['Made on the platform', 'Second', 'Third']);
    expect((all.body as unknown as TraktList[])[0]!.ids.trakt).toBe(made.body.id);
    expect(pagination(all)).toEqual({ page: 1, limit: 100, pageCount: 1, itemCount: 3 });

    const page2 = await trakt(app, dave, 'GET', '/users/dave/lists?page=2&limit=2');
    expect((page2.body as unknown as TraktList[]).map((l) => l.name)).toEqual(['Third']);
    expect(pagination(page2)).toEqual({ page: 2, limit: 2, pageCount: 2, itemCount: 3 });

    const seen = await trakt(app, { clientId: alice.clientId }, 'GET', '/users/dave/lists');
    expect((seen.body as unknown as TraktList[]).map((l) => l.name)).toEqual(['Made on the platform', 'Third']);
    expect(pagination(seen).itemCount).toBe(2);
  });

  it('a private profile or an unknown username is 404; users/me without a token 401', async () => {
    const erin = await member(app, 'erin', RW);
    await create(erin, { name: 'Erin public', privacy: 'public' });
    await query(em(), { text: `update app_user set profile_privacy = 'private' where id = $1`, params: [erin.userId] });
    expect((await trakt(app, alice, 'GET', '/users/erin/lists')).status).toBe(404);
    expect((await trakt(app, alice, 'GET', '/users/erin/lists/erin-public')).status).toBe(404);
    expect((await trakt(app, alice, 'GET', '/users/nobody-here/lists')).status).toBe(404);
    expect((await trakt(app, erin, 'GET', '/users/erin/lists')).status).toBe(200);
    expect((await trakt(app, { clientId: alice.clientId }, 'GET', '/users/me/lists')).status).toBe(401);
  });
});

describe('items', () => {
  it('add: 201 with added, existing and not_found; GET items paged in list order with their titles; by type', async () => {
    const list = await create(alice, { name: 'Mixed', privacy: 'public' });
    const path = `/users/alice/lists/${list.ids.trakt}/items`;
    const add = await trakt(app, alice, 'POST', path, {
      movies: [{ ids: { tmdb: SPIRITED_AWAY } }, { ids: { tmdb: 999_999_999 } }, { title: 'No such film at all', year: 1901 }],
      shows: [{ ids: { tmdb: FIRST_SHOW } }],
      seasons: [{ ids: { trakt: 1 } }],
      people: [{ ids: { slug: 'someone' } }],
    });
    expect(add.status).toBe(201);
    expect(keys(add.body)).toEqual(['added', 'existing', 'list', 'not_found']);
    expect(add.body.added).toEqual({ ...ZERO, movies: 1, shows: 1 });
    expect(add.body.existing).toEqual(ZERO);
    expect(add.body.not_found).toEqual({ ...NONE, movies: [{ ids: { tmdb: 999_999_999 } }, { title: 'No such film at all', year: 1901 }], seasons: [{ ids: { trakt: 1 } }], people: [{ ids: { slug: 'someone' } }] });
    expect(add.body.list).toEqual({ updated_at: expect.stringMatching(ISO), item_count: 2 });

    // Again, by another id (the trakt id of the same movie) and one new movie: existing and added.
    const got = await trakt(app, alice, 'GET', `${path}`);
    const spirited = (got.body as unknown as { movie: { ids: { trakt: number } } }[])[0]!.movie;
    const again = await trakt(app, alice, 'POST', path, { movies: [{ ids: { trakt: spirited.ids.trakt } }, { ids: { tmdb: TOY_STORY } }] });
    expect(again.body).toMatchObject({ added: { ...ZERO, movies: 1 }, existing: { ...ZERO, movies: 1 }, not_found: NONE, list: { item_count: 3 } });

    const page = await trakt(app, { clientId: bob.clientId }, 'GET', `${path}?page=1&limit=2`);
    expect(page.status).toBe(200);
    expect(pagination(page)).toEqual({ page: 1, limit: 2, pageCount: 2, itemCount: 3 });
    const items = page.body as unknown as Record<string, unknown>[];
    expect(items.map((i) => keys(i))).toEqual([
      ['id', 'listed_at', 'movie', 'notes', 'rank', 'type'],
      ['id', 'listed_at', 'notes', 'rank', 'show', 'type'],
    ]);
    expect(items[0]).toMatchObject({ rank: 1, id: expect.any(Number), notes: null, type: 'movie', movie: { title: expect.any(String), year: 2001, ids: { trakt: spirited.ids.trakt, slug: expect.stringMatching(/-2001$/), imdb: expect.any(String), tmdb: SPIRITED_AWAY } } });
    expect(items[0]!.listed_at).toMatch(ISO);
    expect(items[1]).toMatchObject({ rank: 2, type: 'show', show: { ids: { tmdb: FIRST_SHOW } } });
    const last = await trakt(app, alice, 'GET', `${path}?page=2&limit=2`);
    expect((last.body as unknown as Record<string, unknown>[]).map((i) => [i.rank, i.type])).toEqual([[3, 'movie']]);

    const movies = await trakt(app, alice, 'GET', `${path}/movie`);
    expect((movies.body as unknown as { type: string }[]).map((i) => i.type)).toEqual(['movie', 'movie']);
    expect(pagination(movies).itemCount).toBe(2);
    const shows = await trakt(app, alice, 'GET', `${path}/show,episode`);
    expect(pagination(shows).itemCount).toBe(1);
    const episodes = await trakt(app, alice, 'GET', `${path}/episode`);
    expect(episodes.body).toEqual([]);
    expect(pagination(episodes).itemCount).toBe(0);
    expect((await trakt(app, alice, 'GET', `${path}/person`)).status).toBe(422);
  });

  it('remove: 200 with deleted and not_found; the list\'s count follows', async () => {
    const list = await create(alice, { name: 'To trim' });
    const path = `/users/me/lists/${list.ids.trakt}/items`;
    await trakt(app, alice, 'POST', path, { movies: [{ ids: { tmdb: SPIRITED_AWAY } }, { ids: { tmdb: TOY_STORY } }] });
    const res = await trakt(app, alice, 'POST', `${path}/remove`, { movies: [{ ids: { tmdb: SPIRITED_AWAY } }, { ids: { tmdb: 999_999_999 } }], shows: [{ ids: { tmdb: FIRST_SHOW } }] });
    expect(res.status).toBe(200);
    expect(keys(res.body)).toEqual(['deleted', 'list', 'not_found']);
    expect(res.body.deleted).toEqual({ ...ZERO, movies: 1 });
    expect(res.body.not_found).toEqual({ ...NONE, movies: [{ ids: { tmdb: 999_999_999 } }], shows: [{ ids: { tmdb: FIRST_SHOW } }] });
    expect(res.body.list).toEqual({ updated_at: expect.stringMatching(ISO), item_count: 1 });
    expect((await trakt(app, alice, 'POST', `${path}/remove`, { movies: 'all' })).status).toBe(422);
  });

  it('a collaborator adds and removes; a stranger is 404 even on a public list; 403 without lists:write; 401 without a token', async () => {
    const list = await create(alice, { name: 'Together', privacy: 'public' });
    expect((await platform(app, alice.token, 'POST', `/lists/${list.ids.trakt}/collaborators`, { username: 'bob' })).status).toBe(200);
    expect((await platform(app, bob.token, 'POST', `/lists/${list.ids.trakt}/collaborators/accept`, {})).status).toBe(200);
    const path = `/users/alice/lists/${list.ids.trakt}/items`;
    const byBob = await trakt(app, bob, 'POST', path, { movies: [{ ids: { tmdb: SPIRITED_AWAY } }] });
    expect(byBob.status).toBe(201);
    expect(byBob.body.added).toEqual({ ...ZERO, movies: 1 });
    expect((await trakt(app, bob, 'POST', `${path}/remove`, { movies: [{ ids: { tmdb: SPIRITED_AWAY } }] })).body.deleted).toEqual({ ...ZERO, movies: 1 });
    expect((await trakt(app, carol, 'POST', path, { movies: [{ ids: { tmdb: SPIRITED_AWAY } }] })).status).toBe(404);
    expect((await trakt(app, carol, 'POST', `${path}/remove`, { movies: [{ ids: { tmdb: SPIRITED_AWAY } }] })).status).toBe(404);
    // Settings and deletion stay the owner's.
    expect((await trakt(app, bob, 'PUT', `/users/alice/lists/${list.ids.trakt}`, { name: 'Bob\'s' })).status).toBe(404);
    expect((await trakt(app, bob, 'DELETE', `/users/alice/lists/${list.ids.trakt}`)).status).toBe(404);
    const readOnly = await tokenWith(app, bob, ['lists:read']);
    expect((await trakt(app, { ...bob, token: readOnly }, 'POST', path, { movies: [] })).status).toBe(403);
    expect((await trakt(app, { clientId: bob.clientId }, 'POST', path, { movies: [] })).status).toBe(401);
  });

  it('420 when the list would pass its item limit (10,000); nothing is added', async () => {
    const list = await create(carol, { name: 'Full' });
    await query(em(), {
      text: `insert into title (type, movie_db_id, category, name, year, poster_path, popularity, source)
        select 'movie', 700000 + g, 'movie', 'Bulk movie ' || g, 2000, '', g, 'test' from generate_series(0, 9999) g
        on conflict (type, movie_db_id) do nothing`,
      params: [],
    });
    await query(em(), {
      text: `insert into list_item (list_id, title_id, position) select $1, t.id, t.movie_db_id - 700000 + 1 from title t where t.type = 'movie' and t.movie_db_id between 700000 and 709999`,
      params: [list.ids.trakt],
    });
    const res = await trakt(app, carol, 'POST', `/users/me/lists/${list.ids.trakt}/items`, { movies: [{ ids: { tmdb: SPIRITED_AWAY } }] });
    expect(res.status).toBe(420);
    expect(res.body).toEqual({ error: 'conflict', error_description: expect.any(String) });
    const [row] = await query<{ n: number }>(em(), { text: 'select count(*)::int as n from list_item where list_id = $1', params: [list.ids.trakt] });
    expect(row!.n).toBe(10_000);
  });
});

describe('one set of lists for both APIs', () => {
  it('a change through the facade shows in the platform\'s GET /lists/{id} and in the change feed', async () => {
    const frank = await member(app, 'frank', RW);
    const list = await create(frank, { name: 'Seen by both', description: 'x', privacy: 'public' });
    await trakt(app, frank, 'POST', `/users/me/lists/${list.ids.trakt}/items`, { movies: [{ ids: { tmdb: SPIRITED_AWAY } }], shows: [{ ids: { tmdb: FIRST_SHOW } }] });
    const [movieItem, showItem] = ((await trakt(app, frank, 'GET', `/users/me/lists/${list.ids.trakt}/items`)).body as unknown as { id: number }[]).map((i) => String(i.id));
    await trakt(app, frank, 'PUT', `/users/me/lists/${list.ids.trakt}`, { name: 'Seen by both, renamed' });
    await trakt(app, frank, 'POST', `/users/me/lists/${list.ids.trakt}/items/remove`, { shows: [{ ids: { tmdb: FIRST_SHOW } }] });

    const detail = await platform(app, frank.token, 'GET', `/lists/${list.ids.trakt}`);
    expect(detail.status).toBe(200);
    expect(detail.body).toMatchObject({ name: 'Seen by both, renamed', description: 'x', isPublic: true, itemCount: 1 });
    expect((detail.body.items as { movieDbId: number; type: string }[]).map((i) => [i.type, i.movieDbId])).toEqual([['movie', SPIRITED_AWAY]]);

    await settled(app, frank.userId);
    const { changes } = await readFeed(app, frank.token);
    const ofList = changes.filter((c) => c.resource === 'lists' && c.resourceId === String(list.ids.trakt));
    expect(ofList.at(-1)).toMatchObject({ op: 'upsert', data: { name: 'Seen by both, renamed', itemCount: 1 } });
    // The feed's last record of each item: the movie's is there, the show's deleted.
    const lastOf = (id: string) => changes.filter((c) => c.resource === 'list_items' && c.resourceId === id).at(-1);
    expect(lastOf(movieItem!)).toMatchObject({ op: 'upsert' });
    expect(lastOf(showItem!)).toMatchObject({ op: 'delete' });

    const gone = await trakt(app, frank, 'DELETE', `/users/me/lists/${list.ids.trakt}`);
    expect(gone.status).toBe(204);
    await settled(app, frank.userId);
    const after = await readFeed(app, frank.token);
    expect(after.changes.filter((c) => c.resource === 'lists' && c.resourceId === String(list.ids.trakt)).at(-1)).toMatchObject({ op: 'delete' });
  });
});
