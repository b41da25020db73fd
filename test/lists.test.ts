// Lists over real HTTP: exact shapes of List, list summary and list detail; paging of the user's lists
// and of a list's items by nextCursor (each exactly once, cursors bound to their parameters); items
// (added / existing / not_found, remove, reorder) with counts, breakdown and preview posters agreeing;
// the watchlist; permissions of owner, collaborator and stranger; likes; and the change-feed records.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { query } from '../src/core/db/sql.ts';
import { transaction } from '../src/core/db/transaction.ts';
import { logWatches } from '../src/core/library/history-write.ts';
import { addToWatchlist, removeFromWatchlist } from '../src/core/lists/watchlist.ts';
import { profileHomeLists } from '../src/core/lists/summaries.ts';
import { userListsForTitle } from '../src/core/lists/for-title.ts';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { expectError } from './helpers/envelope.ts';
import { FIRST_SHOW, member, platform, seedCatalog, SPIRITED_AWAY, tokenWith, type Member } from './helpers/seed.ts';

let app: TestApp;
let alice: Member;
let bob: Member;
let carol: Member;
const em = () => app.db.orm.em.fork();
const RW = ['lists:read', 'lists:write'];
const TOY_STORY = 862;

const LIST_KEYS = ['createdAt', 'description', 'id', 'isCollaborative', 'isDynamicList', 'isFeatured', 'isPublic', 'isWatchlist', 'itemBreakdown', 'itemCount', 'lastSyncedAt', 'name', 'ownerUsername', 'previewPosters'];
const SUMMARY_KEYS = ['description', 'externalSource', 'id', 'isCollaborative', 'isDynamicList', 'isPublic', 'isWatchlist', 'itemCount', 'name', 'ownerUsername', 'previewPosters'];
const DETAIL_KEYS = ['collaborators', 'commentCount', 'createdAt', 'description', 'dynamicListFilters', 'dynamicListLastFullSyncedAt', 'dynamicListSyncState', 'externalSource', 'externalUrl', 'id', 'isCollaborative', 'isCollaborator', 'isDynamicList', 'isFeatured', 'isLiked', 'isOwner', 'isPublic', 'isWatchlist', 'itemCount', 'items', 'lastSyncError', 'lastSyncedAt', 'likeCount', 'name', 'ownerId', 'ownerUsername'];
const ITEM_KEYS = ['addedAt', 'id', 'isAnime', 'movieDbId', 'popularity', 'posterPath', 'releaseDate', 'runtime', 'title', 'type', 'watched'];
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

// A POST without a body still sends `{}`: the facade asks every POST for a JSON content type.
const call = (m: Member, method: string, path: string, body?: unknown) => platform(app, m.token, method, path, body ?? (method === 'POST' ? {} : undefined));
const keys = (o: unknown) => Object.keys(o as object).sort();

async function create(m: Member, body: Record<string, unknown>) {
  const res = await call(m, 'POST', '/lists', body);
  expect(res.status).toBe(200);
  return res.body as { id: number } & Record<string, unknown>;
}

/** Adds `count` synthetic movies to the catalog (movie_db_id from `start`; again: no-op), for lists of thousands. */
async function addCatalogMovies(start: number, count: number) {
  await query(em(), {
    text: `insert into title (type, movie_db_id, category, name, year, poster_path, popularity, source)
      select 'movie', $1 + g, 'movie', 'Bulk movie ' || g, 2000 + g % 20, '/bulk' || g || '.jpg', g, 'test' from generate_series(0, $2 - 1) g
      on conflict (type, movie_db_id) do nothing`,
    params: [start, count],
  });
}

/** Puts the catalog movies `from`..`to` (movie_db_id) into a list directly, in that order. */
async function fillList(listId: number, from: number, to: number) {
  await query(em(), {
    text: `insert into list_item (list_id, title_id, position) select $1, t.id, t.movie_db_id - $2 + 1 from title t
      where t.type = 'movie' and t.movie_db_id between $2 and $3`,
    params: [listId, from, to],
  });
}

async function titleId(type: string, movieDbId: number) {
  const [r] = await query<{ id: string }>(em(), { text: `select id from title where type = $1 and movie_db_id = $2`, params: [type, movieDbId] });
  return String(r!.id);
}

beforeAll(async () => {
  app = await startTestApp();
  await seedCatalog(app, { shows: 3 });
  // One anime title, so the breakdown has all three categories.
  await query(em(), { text: `update title set category = 'anime', is_anime = true where type = 'show' and movie_db_id = $1`, params: [FIRST_SHOW + 1] });
  alice = await member(app, 'alice', RW);
  bob = await member(app, 'bob', RW);
  carol = await member(app, 'carol', RW);
});
afterAll(() => app?.stop());

describe('POST /lists and GET /lists/{id}', () => {
  it('creates a list with exactly the List shape', async () => {
    const res = await call(alice, 'POST', '/lists', { name: '  Ghibli  ', description: 'Studio films', isPublic: true });
    expect(res.status).toBe(200);
    expect(keys(res.body)).toEqual(LIST_KEYS);
    expect(res.body).toEqual({
      id: expect.any(Number), name: 'Ghibli', description: 'Studio films', isPublic: true, isWatchlist: false, isDynamicList: false,
      lastSyncedAt: null, isCollaborative: false, isFeatured: false, ownerUsername: 'alice', itemCount: 0,
      itemBreakdown: { movies: 0, shows: 0, anime: 0 }, createdAt: expect.stringMatching(ISO), previewPosters: [],
    });
  });

  it('defaults description to "" and isPublic to false; name is required, 1-100 characters', async () => {
    const made = await create(alice, { name: 'x'.repeat(100) });
    expect(made).toMatchObject({ description: '', isPublic: false, name: 'x'.repeat(100) });
    expectError(await call(alice, 'POST', '/lists', { name: 'x'.repeat(101) }), 400, 'invalid_request');
    expectError(await call(alice, 'POST', '/lists', { name: '   ' }), 400, 'invalid_request');
    expectError(await call(alice, 'POST', '/lists', {}), 400, 'invalid_request');
    expectError(await call(alice, 'POST', '/lists', { name: 'a', colour: 'red' }), 400, 'invalid_request');
    expectError(await call(alice, 'POST', '/lists', { name: 'a', description: 'd'.repeat(2001) }), 400, 'invalid_request');
    expect((await call(alice, 'POST', '/lists', { name: 'a', description: 'd'.repeat(2000) })).status).toBe(200);
  });

  it('shows the list detail exactly, with nulls for the sync and external fields of a plain list', async () => {
    const list = await create(alice, { name: 'Detail', description: 'About', isPublic: false });
    await call(alice, 'POST', `/lists/${list.id}/items`, { items: [{ type: 'movie', movieDbId: SPIRITED_AWAY }] });
    const res = await call(alice, 'GET', `/lists/${list.id}`);
    expect(res.status).toBe(200);
    expect(keys(res.body)).toEqual(DETAIL_KEYS);
    expect(res.body).toEqual({
      id: list.id, name: 'Detail', description: 'About', isPublic: false, isWatchlist: false, isDynamicList: false,
      isOwner: true, isCollaborator: false, isCollaborative: false, isFeatured: false, isLiked: false,
      externalSource: null, externalUrl: null, itemCount: 1, likeCount: 0, commentCount: 0,
      createdAt: list.createdAt, lastSyncedAt: null, dynamicListLastFullSyncedAt: null,
      ownerId: alice.userId, ownerUsername: 'alice', collaborators: [],
      items: [expect.any(Object)], dynamicListFilters: null, lastSyncError: null, dynamicListSyncState: null,
    });
    const item = (res.body.items as Record<string, unknown>[])[0]!;
    expect(keys(item)).toEqual(ITEM_KEYS);
    expect(item).toEqual({
      id: expect.any(Number), movieDbId: SPIRITED_AWAY, type: 'movie', isAnime: false, title: 'Spirited Away',
      posterPath: '/ynXoOxmDHNQ4UAy0oU6avW71HVW.jpg', addedAt: expect.stringMatching(ISO), runtime: 125,
      popularity: expect.any(Number), releaseDate: '2001-07-20T00:00:00.000Z', watched: false,
    });
  });

  it('marks items the viewer has watched', async () => {
    const list = await create(alice, { name: 'Watched', isPublic: true });
    await call(alice, 'POST', `/lists/${list.id}/items`, { items: [{ type: 'movie', movieDbId: SPIRITED_AWAY }, { type: 'movie', movieDbId: TOY_STORY }] });
    const spirited = await titleId('movie', SPIRITED_AWAY);
    await transaction(em(), (tx) =>
      logWatches(tx, alice.userId, [{ titleId: spirited, episodeId: null, season: null, episode: null, watchedAt: new Date('2026-01-01T00:00:00Z'), runtimeMinutes: null, source: 'api', clientId: null }]),
    );
    const mine = await call(alice, 'GET', `/lists/${list.id}`);
    expect((mine.body.items as { movieDbId: number; watched: boolean }[]).map((i) => [i.movieDbId, i.watched])).toEqual([[SPIRITED_AWAY, true], [TOY_STORY, false]]);
    // Bob sees the public list with his own (empty) history.
    const his = await call(bob, 'GET', `/lists/${list.id}`);
    expect((his.body.items as { watched: boolean }[]).map((i) => i.watched)).toEqual([false, false]);
    expect(his.body).toMatchObject({ isOwner: false, isCollaborator: false });
  });

  it('answers 404 for an unknown list and 400 for a bad id', async () => {
    expectError(await call(alice, 'GET', '/lists/999999999'), 404, 'not_found');
    expectError(await call(alice, 'GET', '/lists/0'), 400, 'invalid_request');
    expectError(await call(alice, 'GET', '/lists/abc'), 400, 'invalid_request');
  });

  it('needs lists:read to read and lists:write to write', async () => {
    const readOnly = { ...alice, token: await tokenWith(app, alice, ['lists:read']) };
    const writeOnly = { ...alice, token: await tokenWith(app, alice, ['lists:write']) };
    const list = await create(alice, { name: 'Scopes' });
    expectError(await call(readOnly, 'POST', '/lists', { name: 'n' }), 403, 'insufficient_scope', { required_scope: 'lists:write' });
    expectError(await call(readOnly, 'PATCH', `/lists/${list.id}`, { name: 'n' }), 403, 'insufficient_scope', { required_scope: 'lists:write' });
    expectError(await call(readOnly, 'DELETE', `/lists/${list.id}`), 403, 'insufficient_scope', { required_scope: 'lists:write' });
    expectError(await call(readOnly, 'POST', `/lists/${list.id}/items`, { items: [{ type: 'movie', movieDbId: SPIRITED_AWAY }] }), 403, 'insufficient_scope', { required_scope: 'lists:write' });
    expectError(await call(readOnly, 'POST', `/lists/${list.id}/like`), 403, 'insufficient_scope', { required_scope: 'lists:write' });
    expectError(await call(readOnly, 'POST', `/lists/${list.id}/collaborators`, { username: 'bob' }), 403, 'insufficient_scope', { required_scope: 'lists:write' });
    expectError(await call(writeOnly, 'GET', `/lists/${list.id}`), 403, 'insufficient_scope', { required_scope: 'lists:read' });
    expectError(await call(writeOnly, 'GET', `/lists/${list.id}/items`), 403, 'insufficient_scope', { required_scope: 'lists:read' });
    expectError(await call(writeOnly, 'GET', '/me/lists'), 403, 'insufficient_scope', { required_scope: 'lists:read' });
    expectError(await call(writeOnly, 'GET', '/me/watchlist'), 403, 'insufficient_scope', { required_scope: 'lists:read' });
    expectError(await platform(app, null, 'GET', '/me/lists'), 401, 'invalid_token');
  });
});

describe('items', () => {
  it('adds (added / existing / not_found), removes and reorders; counts, breakdown and posters agree with the items', async () => {
    const list = await create(alice, { name: 'Mixed', isPublic: true });
    const add = await call(alice, 'POST', `/lists/${list.id}/items`, {
      items: [
        { type: 'movie', movieDbId: SPIRITED_AWAY },
        { type: 'show', movieDbId: FIRST_SHOW },
        { type: 'show', movieDbId: FIRST_SHOW + 1 },
        { type: 'movie', movieDbId: SPIRITED_AWAY },
        { type: 'show', movieDbId: SPIRITED_AWAY },
        { type: 'movie', movieDbId: TOY_STORY },
      ],
    });
    expect(add.status).toBe(200);
    const results = add.body.results as { status: string; item: { id: number; movieDbId: number } | null; type: string; movieDbId: number }[];
    expect(results.map((r) => [r.type, r.movieDbId, r.status])).toEqual([
      ['movie', SPIRITED_AWAY, 'added'], ['show', FIRST_SHOW, 'added'], ['show', FIRST_SHOW + 1, 'added'],
      ['movie', SPIRITED_AWAY, 'existing'], ['show', SPIRITED_AWAY, 'not_found'], ['movie', TOY_STORY, 'added'],
    ]);
    expect(results[3]!.item!.id).toBe(results[0]!.item!.id);
    expect(results[4]!.item).toBeNull();
    const again = await call(alice, 'POST', `/lists/${list.id}/items`, { items: [{ type: 'show', movieDbId: FIRST_SHOW }] });
    expect((again.body.results as { status: string }[])[0]!.status).toBe('existing');

    const check = async (expected: number[]) => {
      const detail = await call(alice, 'GET', `/lists/${list.id}`);
      const items = detail.body.items as { id: number; movieDbId: number; type: string; posterPath: string; isAnime: boolean }[];
      expect(items.map((i) => i.movieDbId)).toEqual(expected);
      expect(detail.body.itemCount).toBe(items.length);
      const summary = ((await call(alice, 'GET', '/me/lists?limit=100')).body.items as Record<string, unknown>[]).find((l) => l.id === list.id)!;
      expect(summary.itemCount).toBe(items.length);
      const posters = items.filter((i) => i.posterPath).slice(0, 4).map((i) => ({ posterPath: i.posterPath, movieDbId: i.movieDbId, type: i.type }));
      expect(summary.previewPosters).toEqual(posters);
      const [userList] = (await userListsForTitle(em(), alice.userId, await titleId('movie', SPIRITED_AWAY))).filter((l) => l.id === list.id);
      expect(userList!.itemBreakdown).toEqual({
        movies: items.filter((i) => i.type === 'movie' && !i.isAnime).length,
        shows: items.filter((i) => i.type === 'show' && !i.isAnime).length,
        anime: items.filter((i) => i.isAnime).length,
      });
      expect(userList!.previewPosters).toEqual(posters);
      return items;
    };
    const items = await check([SPIRITED_AWAY, FIRST_SHOW, FIRST_SHOW + 1, TOY_STORY]);

    const reorder = await call(alice, 'POST', `/lists/${list.id}/items/reorder`, { itemIds: [items[3]!.id, items[2]!.id] });
    expect(reorder).toMatchObject({ status: 200, body: { reordered: 2 } });
    await check([TOY_STORY, FIRST_SHOW + 1, SPIRITED_AWAY, FIRST_SHOW]);
    expectError(await call(alice, 'POST', `/lists/${list.id}/items/reorder`, { itemIds: [items[0]!.id, items[0]!.id] }), 400, 'invalid_request');
    expectError(await call(alice, 'POST', `/lists/${list.id}/items/reorder`, { itemIds: [999999999] }), 404, 'not_found');

    const removed = await call(alice, 'DELETE', `/lists/${list.id}/items/${items[0]!.id}`);
    expect(removed).toMatchObject({ status: 200, body: { id: items[0]!.id, removed: true } });
    await check([TOY_STORY, FIRST_SHOW + 1, FIRST_SHOW]);
    expectError(await call(alice, 'DELETE', `/lists/${list.id}/items/${items[0]!.id}`), 404, 'not_found');
  });

  it('preview posters follow the catalog: a changed poster shows, a title without one gives way to the next', async () => {
    await addCatalogMovies(9_100_000, 6);
    const list = await create(alice, { name: 'Poster follow' });
    const ids = [0, 1, 2, 3, 4, 5].map((i) => ({ type: 'movie', movieDbId: 9_100_000 + i }));
    expect((await call(alice, 'POST', `/lists/${list.id}/items`, { items: ids })).status).toBe(200);
    const preview = async () => {
      const items = (await call(alice, 'GET', '/me/lists?limit=100')).body.items as { id: number; previewPosters: { posterPath: string; movieDbId: number }[] }[];
      return items.find((l) => l.id === list.id)!.previewPosters.map((p) => [p.movieDbId - 9_100_000, p.posterPath]);
    };
    expect(await preview()).toEqual([0, 1, 2, 3].map((i) => [i, `/bulk${i}.jpg`]));
    // A catalog update (any statement that changes title.poster_path) moves every list holding the title.
    await query(em(), { text: `update title set poster_path = '/renewed.jpg' where type = 'movie' and movie_db_id = $1`, params: [9_100_001] });
    expect(await preview()).toEqual([[0, '/bulk0.jpg'], [1, '/renewed.jpg'], [2, '/bulk2.jpg'], [3, '/bulk3.jpg']]);
    await query(em(), { text: `update title set poster_path = '' where type = 'movie' and movie_db_id = $1`, params: [9_100_000] });
    expect(await preview()).toEqual([[1, '/renewed.jpg'], [2, '/bulk2.jpg'], [3, '/bulk3.jpg'], [4, '/bulk4.jpg']]);
    // Other columns of the title leave the list alone (its updated_at included).
    const before = await query<{ updated_at: Date }>(em(), { text: 'select updated_at from list where id = $1', params: [list.id] });
    await query(em(), { text: `update title set popularity = popularity + 1, poster_path = poster_path where type = 'movie' and movie_db_id = $1`, params: [9_100_002] });
    expect(await query(em(), { text: 'select updated_at from list where id = $1', params: [list.id] })).toEqual(before);
    expect(await preview()).toEqual([[1, '/renewed.jpg'], [2, '/bulk2.jpg'], [3, '/bulk3.jpg'], [4, '/bulk4.jpg']]);
  });

  it('concurrent writes to one list keep counts exact; concurrent first uses make one watchlist', async () => {
    const list = await create(carol, { name: 'Busy' });
    const titles = [[SPIRITED_AWAY, 'movie'], [TOY_STORY, 'movie'], [FIRST_SHOW, 'show'], [FIRST_SHOW + 1, 'show'], [FIRST_SHOW + 2, 'show']] as const;
    const answers = await Promise.all(titles.map(([movieDbId, type]) => call(carol, 'POST', `/lists/${list.id}/items`, { items: [{ type, movieDbId }, { type: 'movie', movieDbId: SPIRITED_AWAY }] })));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 200]);
    const detail = await call(carol, 'GET', `/lists/${list.id}`);
    expect((detail.body.items as unknown[]).length).toBe(5);
    expect(detail.body.itemCount).toBe(5);
    const newcomer = await member(app, 'newcomer', RW);
    const ids = await Promise.all([1, 2, 3, 4].map(async () => (await call(newcomer, 'GET', '/me/watchlist')).body.id));
    expect(new Set(ids).size).toBe(1);
    expect(((await call(newcomer, 'GET', '/me/lists')).body.items as unknown[]).length).toBe(1);
  });

  it('takes 1 to 100 titles per call', async () => {
    const list = await create(alice, { name: 'Bounds' });
    expectError(await call(alice, 'POST', `/lists/${list.id}/items`, { items: [] }), 400, 'invalid_request');
    const hundred = Array.from({ length: 100 }, () => ({ type: 'movie', movieDbId: SPIRITED_AWAY }));
    expect((await call(alice, 'POST', `/lists/${list.id}/items`, { items: hundred })).status).toBe(200);
    expectError(await call(alice, 'POST', `/lists/${list.id}/items`, { items: [...hundred, hundred[0]] }), 400, 'invalid_request');
    expectError(await call(alice, 'POST', `/lists/${list.id}/items`, { items: [{ type: 'film', movieDbId: 1 }] }), 400, 'invalid_request');
  });
});

describe('paging', () => {
  it('pages 5,000 items by nextCursor, each exactly once in list order; a cursor with other parameters is 400', async () => {
    await addCatalogMovies(500_000, 10_000);
    const list = await create(bob, { name: 'Five thousand' });
    // 4,900 items written directly (fast), the last 100 through the API, which recounts the list.
    await fillList(list.id, 500_000, 504_899);
    const last = Array.from({ length: 100 }, (_, i) => ({ type: 'movie', movieDbId: 504_900 + i }));
    expect((await call(bob, 'POST', `/lists/${list.id}/items`, { items: last })).status).toBe(200);
    const seen: number[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const res = await call(bob, 'GET', `/lists/${list.id}/items?limit=100${cursor ? `&cursor=${cursor}` : ''}`);
      expect(res.status).toBe(200);
      expect(keys(res.body)).toEqual(cursor === undefined || res.body.nextCursor ? (res.body.nextCursor ? ['items', 'nextCursor'] : ['items']) : ['items']);
      seen.push(...(res.body.items as { movieDbId: number }[]).map((i) => i.movieDbId));
      cursor = res.body.nextCursor as string | undefined;
      pages++;
    } while (cursor);
    expect(pages).toBe(50);
    expect(seen).toEqual(Array.from({ length: 5000 }, (_, i) => 500_000 + i));

    // The detail pages the same way with itemsCursor / itemsNextCursor (default 50 per page).
    const first = await call(bob, 'GET', `/lists/${list.id}`);
    expect(first.body.itemCount).toBe(5000);
    expect((first.body.items as unknown[]).length).toBe(50);
    const second = await call(bob, 'GET', `/lists/${list.id}?itemsCursor=${first.body.itemsNextCursor as string}`);
    expect((second.body.items as { movieDbId: number }[])[0]!.movieDbId).toBe(500_050);
    const viaItems = await call(bob, 'GET', `/lists/${list.id}/items?cursor=${first.body.itemsNextCursor as string}`);
    expect((viaItems.body.items as { movieDbId: number }[])[0]!.movieDbId).toBe(500_050);

    const page = await call(bob, 'GET', `/lists/${list.id}/items?limit=10`);
    expectError(await call(bob, 'GET', `/lists/${list.id}/items?limit=11&cursor=${page.body.nextCursor as string}`), 400, 'invalid_request');
    const other = await create(bob, { name: 'Other' });
    expectError(await call(bob, 'GET', `/lists/${other.id}/items?limit=10&cursor=${page.body.nextCursor as string}`), 400, 'invalid_request');
    expectError(await call(bob, 'GET', `/lists/${list.id}/items?cursor=not-a-cursor`), 400, 'invalid_request');
    expect((await call(bob, 'GET', `/lists/${list.id}/items?limit=100`)).status).toBe(200);
    expectError(await call(bob, 'GET', `/lists/${list.id}/items?limit=101`), 400, 'invalid_request');
    expectError(await call(bob, 'GET', `/lists/${list.id}/items?limit=0`), 400, 'invalid_request');
    expectError(await call(bob, 'GET', `/lists/${list.id}?itemsLimit=101`), 400, 'invalid_request');
  });

  it('holds at most 10,000 items: the 10,000th is added, one more is 409 conflict, a title already there is still fine', async () => {
    await addCatalogMovies(500_000, 10_000);
    const list = await create(bob, { name: 'Full' });
    await fillList(list.id, 500_000, 509_998);
    const tenThousandth = await call(bob, 'POST', `/lists/${list.id}/items`, { items: [{ type: 'movie', movieDbId: 509_999 }] });
    expect((tenThousandth.body.results as { status: string }[])[0]!.status).toBe('added');
    expect((await call(bob, 'GET', `/lists/${list.id}?itemsLimit=1`)).body.itemCount).toBe(10_000);
    expectError(await call(bob, 'POST', `/lists/${list.id}/items`, { items: [{ type: 'movie', movieDbId: SPIRITED_AWAY }] }), 409, 'conflict');
    const existing = await call(bob, 'POST', `/lists/${list.id}/items`, { items: [{ type: 'movie', movieDbId: 500_000 }] });
    expect((existing.body.results as { status: string }[])[0]!.status).toBe('existing');
  });

  it('pages the user\'s lists by nextCursor (default 50, 1-100), each exactly once, collaborating lists included', async () => {
    const dave = await member(app, 'dave', RW);
    await query(em(), {
      text: `insert into list (owner_id, name) select $1, 'Bulk list ' || g from generate_series(1, 230) g`,
      params: [dave.userId],
    });
    // One of alice's lists dave collaborates on, one he is only invited to (not his yet).
    const shared = await create(alice, { name: 'Shared with dave' });
    const invitedOnly = await create(alice, { name: 'Invited only' });
    await call(alice, 'POST', `/lists/${shared.id}/collaborators`, { username: 'dave' });
    await call(alice, 'POST', `/lists/${invitedOnly.id}/collaborators`, { username: 'dave' });
    expect((await call(dave, 'POST', `/lists/${shared.id}/collaborators/accept`)).status).toBe(200);

    const first = await call(dave, 'GET', '/me/lists');
    expect(keys(first.body)).toEqual(['items', 'nextCursor']);
    expect((first.body.items as unknown[]).length).toBe(50);
    for (const item of first.body.items as unknown[]) expect(keys(item)).toEqual(SUMMARY_KEYS);
    expect((first.body.items as unknown[])[0]).toEqual({
      id: expect.any(Number), name: 'Bulk list 1', description: '', isPublic: false, isWatchlist: false, isDynamicList: false,
      externalSource: null, isCollaborative: false, ownerUsername: 'dave', itemCount: 0, previewPosters: [],
    });

    const ids: number[] = [];
    let cursor: string | undefined;
    do {
      const res = await call(dave, 'GET', `/me/lists?limit=7${cursor ? `&cursor=${cursor}` : ''}`);
      expect(res.status).toBe(200);
      ids.push(...(res.body.items as { id: number }[]).map((l) => l.id));
      cursor = res.body.nextCursor as string | undefined;
      if (!cursor) expect(keys(res.body)).toEqual(['items']);
    } while (cursor);
    expect(ids.length).toBe(231);
    expect(new Set(ids).size).toBe(231);
    expect(ids).toContain(shared.id);
    expect(ids).not.toContain(invitedOnly.id);
    expect([...ids].sort((a, b) => a - b)).toEqual(ids);

    const page = await call(dave, 'GET', '/me/lists?limit=5');
    expectError(await call(dave, 'GET', `/me/lists?limit=6&cursor=${page.body.nextCursor as string}`), 400, 'invalid_request');
    expectError(await call(dave, 'GET', `/me/lists?cursor=${page.body.nextCursor as string}`), 400, 'invalid_request');
    expect(((await call(dave, 'GET', '/me/lists?limit=100')).body.items as unknown[]).length).toBe(100);
    expectError(await call(dave, 'GET', '/me/lists?limit=101'), 400, 'invalid_request');
    expectError(await call(dave, 'GET', '/me/lists?limit=0'), 400, 'invalid_request');
    expectError(await call(dave, 'GET', '/me/lists?page=2'), 400, 'invalid_request');

    const home = await profileHomeLists(em(), dave.userId, 3);
    expect(home.map((l) => l.name)).toEqual(['Bulk list 1', 'Bulk list 2', 'Bulk list 3']);
    expect(keys(home[0])).toEqual(SUMMARY_KEYS.filter((k) => k !== 'description'));
  });
});

describe('permissions', () => {
  it('private lists are 404 to strangers; public ones readable but not writable by them', async () => {
    const priv = await create(alice, { name: 'Private' });
    const pub = await create(alice, { name: 'Public', isPublic: true });
    for (const path of [`/lists/${priv.id}`, `/lists/${priv.id}/items`]) expectError(await call(carol, 'GET', path), 404, 'not_found');
    expectError(await call(carol, 'POST', `/lists/${priv.id}/like`), 404, 'not_found');
    expect((await call(carol, 'GET', `/lists/${pub.id}`)).status).toBe(200);
    for (const id of [priv.id, pub.id]) {
      expectError(await call(carol, 'PATCH', `/lists/${id}`, { name: 'Mine now' }), 404, 'not_found');
      expectError(await call(carol, 'DELETE', `/lists/${id}`), 404, 'not_found');
      expectError(await call(carol, 'POST', `/lists/${id}/items`, { items: [{ type: 'movie', movieDbId: SPIRITED_AWAY }] }), 404, 'not_found');
      expectError(await call(carol, 'POST', `/lists/${id}/collaborators`, { username: 'carol' }), 404, 'not_found');
    }
    // Making the public list private hides it.
    expect((await call(alice, 'PATCH', `/lists/${pub.id}`, { isPublic: false })).body.isPublic).toBe(false);
    expectError(await call(carol, 'GET', `/lists/${pub.id}`), 404, 'not_found');
  });

  it('owner invites, collaborator accepts, edits items but not settings, leaves; owner removes', async () => {
    const list = await create(alice, { name: 'Together' });
    expectError(await call(alice, 'POST', `/lists/${list.id}/collaborators`, { username: 'nobody-here' }), 404, 'not_found');
    expectError(await call(alice, 'POST', `/lists/${list.id}/collaborators`, { username: 'alice' }), 409, 'conflict');
    const invite = await call(alice, 'POST', `/lists/${list.id}/collaborators`, { username: 'BOB' });
    expect(invite.body).toEqual({ listId: list.id, username: 'bob', status: 'invited' });
    const invitations = await call(bob, 'GET', '/me/list-invitations');
    expect(invitations.body.items).toContainEqual({ listId: list.id, name: 'Together', ownerUsername: 'alice', invitedAt: expect.stringMatching(ISO) });
    // Invited: may read, may not write items yet.
    expect((await call(bob, 'GET', `/lists/${list.id}`)).body).toMatchObject({ isCollaborator: false, isCollaborative: false });
    expectError(await call(bob, 'POST', `/lists/${list.id}/items`, { items: [{ type: 'movie', movieDbId: SPIRITED_AWAY }] }), 404, 'not_found');
    expectError(await call(carol, 'POST', `/lists/${list.id}/collaborators/accept`), 404, 'not_found');
    expect((await call(bob, 'POST', `/lists/${list.id}/collaborators/accept`)).body).toEqual({ id: list.id, accepted: true });
    expect((await call(bob, 'POST', `/lists/${list.id}/collaborators/accept`)).status).toBe(200);

    const detail = await call(bob, 'GET', `/lists/${list.id}`);
    expect(detail.body).toMatchObject({ isOwner: false, isCollaborator: true, isCollaborative: true, collaborators: [{ userId: bob.userId, username: 'bob', avatarUrl: null }] });
    const added = await call(bob, 'POST', `/lists/${list.id}/items`, { items: [{ type: 'movie', movieDbId: SPIRITED_AWAY }, { type: 'movie', movieDbId: TOY_STORY }] });
    const [first] = added.body.results as { item: { id: number } }[];
    expect((await call(bob, 'DELETE', `/lists/${list.id}/items/${first!.item.id}`)).status).toBe(200);
    expect((await call(bob, 'POST', `/lists/${list.id}/items/reorder`, { itemIds: [(added.body.results as { item: { id: number } }[])[1]!.item.id] })).status).toBe(200);
    expectError(await call(bob, 'PATCH', `/lists/${list.id}`, { name: 'Bob was here' }), 404, 'not_found');
    expectError(await call(bob, 'DELETE', `/lists/${list.id}`), 404, 'not_found');
    expectError(await call(bob, 'POST', `/lists/${list.id}/collaborators`, { username: 'carol' }), 404, 'not_found');
    expectError(await call(bob, 'DELETE', `/lists/${list.id}/collaborators/carol`), 404, 'not_found');
    // Carol, a stranger, can remove nobody.
    expectError(await call(carol, 'DELETE', `/lists/${list.id}/collaborators/bob`), 404, 'not_found');

    // Bob leaves: the private list is gone for him.
    expect((await call(bob, 'DELETE', `/lists/${list.id}/collaborators/bob`)).body).toEqual({ id: list.id, username: 'bob', removed: true });
    expectError(await call(bob, 'GET', `/lists/${list.id}`), 404, 'not_found');
    expect((await call(alice, 'GET', `/lists/${list.id}`)).body).toMatchObject({ isCollaborative: false, collaborators: [] });

    // Invited again, accepted, removed by the owner.
    await call(alice, 'POST', `/lists/${list.id}/collaborators`, { username: 'bob' });
    await call(bob, 'POST', `/lists/${list.id}/collaborators/accept`);
    expect((await call(alice, 'DELETE', `/lists/${list.id}/collaborators/bob`)).status).toBe(200);
    expectError(await call(bob, 'POST', `/lists/${list.id}/items`, { items: [{ type: 'movie', movieDbId: SPIRITED_AWAY }] }), 404, 'not_found');
  });

  it('only the owner renames, describes, changes visibility and deletes', async () => {
    const list = await create(alice, { name: 'Before' });
    const res = await call(alice, 'PATCH', `/lists/${list.id}`, { name: 'After', description: 'New words', isPublic: true });
    expect(res.status).toBe(200);
    expect(keys(res.body)).toEqual(LIST_KEYS);
    expect(res.body).toMatchObject({ id: list.id, name: 'After', description: 'New words', isPublic: true });
    expectError(await call(alice, 'PATCH', `/lists/${list.id}`, {}), 400, 'invalid_request');
    expectError(await call(alice, 'PATCH', `/lists/${list.id}`, { dynamicListFilters: { size: 5 } }), 409, 'conflict');
    expect((await call(alice, 'DELETE', `/lists/${list.id}`)).body).toEqual({ id: list.id, deleted: true });
    expectError(await call(alice, 'GET', `/lists/${list.id}`), 404, 'not_found');
    expectError(await call(alice, 'DELETE', `/lists/${list.id}`), 404, 'not_found');
  });
});

describe('likes', () => {
  it('likes and unlikes, idempotently, with counts in the detail', async () => {
    const list = await create(alice, { name: 'Likeable', isPublic: true });
    expect((await call(bob, 'POST', `/lists/${list.id}/like`)).body).toEqual({ listId: list.id, isLiked: true, likeCount: 1 });
    expect((await call(bob, 'POST', `/lists/${list.id}/like`)).body).toEqual({ listId: list.id, isLiked: true, likeCount: 1 });
    expect((await call(carol, 'POST', `/lists/${list.id}/like`)).body).toEqual({ listId: list.id, isLiked: true, likeCount: 2 });
    expect((await call(bob, 'GET', `/lists/${list.id}`)).body).toMatchObject({ isLiked: true, likeCount: 2 });
    expect((await call(alice, 'GET', `/lists/${list.id}`)).body).toMatchObject({ isLiked: false, likeCount: 2 });
    expect((await call(bob, 'DELETE', `/lists/${list.id}/like`)).body).toEqual({ listId: list.id, isLiked: false, likeCount: 1 });
    expect((await call(bob, 'DELETE', `/lists/${list.id}/like`)).body).toEqual({ listId: list.id, isLiked: false, likeCount: 1 });
  });
});

describe('watchlist', () => {
  it('is one per user, made on first use; a title already there is no error and no duplicate; it cannot be deleted', async () => {
    const erin = await member(app, 'erin', RW);
    const first = await call(erin, 'GET', '/me/watchlist');
    expect(first.status).toBe(200);
    expect(keys(first.body)).toEqual(DETAIL_KEYS);
    expect(first.body).toMatchObject({ isWatchlist: true, name: 'Watchlist', itemCount: 0, isOwner: true });
    const again = await call(erin, 'GET', '/me/watchlist');
    expect(again.body.id).toBe(first.body.id);
    const add = { items: [{ type: 'movie', movieDbId: SPIRITED_AWAY }] };
    expect(((await call(erin, 'POST', `/lists/${first.body.id as number}/items`, add)).body.results as { status: string }[])[0]!.status).toBe('added');
    expect(((await call(erin, 'POST', `/lists/${first.body.id as number}/items`, add)).body.results as { status: string }[])[0]!.status).toBe('existing');
    expect((await call(erin, 'GET', '/me/watchlist')).body.itemCount).toBe(1);
    expectError(await call(erin, 'DELETE', `/lists/${first.body.id as number}`), 409, 'conflict');
    expectError(await call(erin, 'POST', `/lists/${first.body.id as number}/collaborators`, { username: 'bob' }), 409, 'conflict');
  });

  it('addToWatchlist / removeFromWatchlist run in the caller\'s transaction and record their changes', async () => {
    const fred = await member(app, 'fred', RW);
    const spirited = await titleId('movie', SPIRITED_AWAY);
    const toy = await titleId('movie', TOY_STORY);
    const [a, b, c] = await transaction(em(), async (tx) => [
      await addToWatchlist(tx, fred.userId, spirited),
      await addToWatchlist(tx, fred.userId, spirited),
      await addToWatchlist(tx, fred.userId, toy),
    ]);
    expect(a).toEqual({ status: 'inserted', id: expect.any(String) });
    expect(b).toEqual({ status: 'skipped', id: a!.id });
    expect(c!.status).toBe('inserted');
    // A rolled-back transaction leaves nothing behind.
    await expect(transaction(em(), async (tx) => {
      await removeFromWatchlist(tx, fred.userId, toy);
      throw new Error('rollback');
    })).rejects.toThrow('rollback');
    expect(await transaction(em(), (tx) => removeFromWatchlist(tx, fred.userId, toy))).toBe(c!.id);
    expect(await transaction(em(), (tx) => removeFromWatchlist(tx, fred.userId, toy))).toBeNull();
    const lists = await call(fred, 'GET', '/me/lists');
    expect(lists.body.items).toEqual([expect.objectContaining({ isWatchlist: true, itemCount: 1 })]);
    const changes = await query<{ resource: string; resource_id: string; op: string }>(em(), {
      text: `select resource, resource_id, op from change_log where user_id = $1 order by xid, id`,
      params: [fred.userId],
    });
    const wl = String((lists.body.items as { id: number }[])[0]!.id);
    expect(changes.filter((ch) => ch.resource === 'list_items').map((ch) => [ch.resource_id, ch.op])).toEqual([[a!.id, 'upsert'], [c!.id, 'upsert'], [c!.id, 'delete']]);
    expect(changes.filter((ch) => ch.resource === 'lists').every((ch) => ch.resource_id === wl && ch.op === 'upsert')).toBe(true);
  });
});

describe('change feed records', () => {
  it('records lists and list_items with the data the read API shows, for owner and collaborators', async () => {
    const gina = await member(app, 'gina', RW);
    const hank = await member(app, 'hank', RW);
    const list = await create(gina, { name: 'Recorded', isPublic: true });
    await call(gina, 'POST', `/lists/${list.id}/collaborators`, { username: 'hank' });
    await call(hank, 'POST', `/lists/${list.id}/collaborators/accept`);
    const added = await call(hank, 'POST', `/lists/${list.id}/items`, { items: [{ type: 'movie', movieDbId: SPIRITED_AWAY }] });
    const itemId = (added.body.results as { item: { id: number } }[])[0]!.item.id;
    await call(hank, 'POST', `/lists/${list.id}/like`);

    const latest = async (userId: string, resource: string, id: number) => {
      const [row] = await query<{ op: string; data: Record<string, unknown> | null }>(em(), {
        text: `select op, data from change_log where user_id = $1 and resource = $2 and resource_id = $3 order by xid desc, id desc limit 1`,
        params: [userId, resource, String(id)],
      });
      return row;
    };
    const summary = ((await call(gina, 'GET', '/me/lists?limit=100')).body.items as { id: number }[]).find((l) => l.id === list.id);
    const item = ((await call(gina, 'GET', `/lists/${list.id}/items`)).body.items as { id: number }[])[0];
    for (const who of [gina, hank]) {
      expect(await latest(who.userId, 'lists', list.id)).toEqual({ op: 'upsert', data: summary });
      expect(await latest(who.userId, 'list_items', itemId)).toEqual({ op: 'upsert', data: { listId: list.id, ...item } });
    }
    expect(await latest(hank.userId, 'list_likes', list.id)).toEqual({ op: 'upsert', data: { listId: list.id, likedAt: expect.stringMatching(ISO) } });

    // A collaborator joining later gets the list and the items already there.
    const ivan = await member(app, 'ivan', RW);
    await call(gina, 'POST', `/lists/${list.id}/collaborators`, { username: 'ivan' });
    await call(ivan, 'POST', `/lists/${list.id}/collaborators/accept`);
    const ivansItem = ((await call(ivan, 'GET', `/lists/${list.id}/items`)).body.items as { id: number }[])[0];
    expect(await latest(ivan.userId, 'list_items', itemId)).toEqual({ op: 'upsert', data: { listId: list.id, ...ivansItem } });
    expect((await latest(ivan.userId, 'lists', list.id))!.op).toBe('upsert');

    await call(gina, 'DELETE', `/lists/${list.id}/items/${itemId}`);
    expect(await latest(hank.userId, 'list_items', itemId)).toEqual({ op: 'delete', data: null });
    await call(gina, 'DELETE', `/lists/${list.id}`);
    for (const who of [gina, hank, ivan]) expect(await latest(who.userId, 'lists', list.id)).toEqual({ op: 'delete', data: null });
  });
});

describe('OpenAPI', () => {
  it('documents every list endpoint, the shapes and the nulls of plain lists', async () => {
    const doc = (await (await fetch(`${app.url}/api/platform/v1/openapi.json`)).json()) as {
      paths: Record<string, Record<string, { description?: string }>>;
      components: { schemas: Record<string, { properties: Record<string, { description?: string; type?: unknown; anyOf?: unknown }> }> };
    };
    const ops = Object.entries(doc.paths).flatMap(([p, item]) => Object.keys(item).map((m) => `${m.toUpperCase()} ${p}`));
    expect(ops).toEqual(expect.arrayContaining([
      'POST /lists', 'GET /lists/{id}', 'PATCH /lists/{id}', 'DELETE /lists/{id}', 'GET /lists/{id}/items', 'POST /lists/{id}/items',
      'DELETE /lists/{id}/items/{itemId}', 'POST /lists/{id}/items/reorder', 'POST /lists/{id}/like', 'DELETE /lists/{id}/like',
      'POST /lists/{id}/collaborators', 'POST /lists/{id}/collaborators/accept', 'DELETE /lists/{id}/collaborators/{username}',
      'GET /me/lists', 'GET /me/watchlist', 'GET /me/list-invitations',
    ]));
    const detail = doc.components.schemas.ListDetail!.properties;
    expect(Object.keys(detail).sort()).toEqual([...DETAIL_KEYS, 'itemsNextCursor'].sort());
    for (const field of ['externalSource', 'externalUrl', 'lastSyncedAt', 'dynamicListLastFullSyncedAt', 'lastSyncError', 'dynamicListSyncState', 'dynamicListFilters']) {
      expect(detail[field]!.description, field).toMatch(/null/);
    }
    expect(detail.dynamicListSyncState!.description).toContain('pending');
    expect(Object.keys(doc.components.schemas.List!.properties).sort()).toEqual(LIST_KEYS);
    expect(Object.keys(doc.components.schemas.ListSummary!.properties).sort()).toEqual(SUMMARY_KEYS);
    expect(doc.paths['/lists/{id}']!.patch!.description).toContain('404');
  });
});
