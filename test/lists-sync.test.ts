// Dynamic lists (items computed from filters, kept by the list-sync job, sync state and timestamps kept
// true), external lists imported from Letterboxd / Trakt list files (read-only, refreshed from the file,
// failures recorded), and featured lists set through the admin CLI and shown for a title.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { query } from '../src/core/db/sql.ts';
import { featuredListsForTitle } from '../src/core/lists/for-title.ts';
import { dueLists, syncDueLists, syncList } from '../src/core/lists/sync.ts';
import { createExternalList } from '../src/core/lists/write.ts';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { runAdmin } from './helpers/cli.ts';
import { expectError } from './helpers/envelope.ts';
import { FIRST_SHOW, member, platform, seedCatalog, SPIRITED_AWAY, type Member } from './helpers/seed.ts';

let app: TestApp;
let owner: Member;
let friend: Member;
const em = () => app.db.orm.em.fork();
const RW = ['lists:read', 'lists:write'];
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const FIXTURES = path.resolve(import.meta.dirname, 'fixtures');
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'lists-sync-'));

const call = (m: Member, method: string, p: string, body?: unknown) => platform(app, m.token, method, p, body ?? (method === 'POST' ? {} : undefined));
const detail = async (m: Member, id: number) => (await call(m, 'GET', `/lists/${id}?itemsLimit=100`)).body as Record<string, unknown> & { items: { id: number; movieDbId: number; type: string }[] };

beforeAll(async () => {
  app = await startTestApp();
  await seedCatalog(app, { shows: 6 });
  owner = await member(app, 'owner', RW);
  friend = await member(app, 'friend', RW);
});
afterAll(async () => {
  await app?.stop();
  fs.rmSync(tmp, { recursive: true, force: true });
});

async function expectReadOnlyItems(m: Member, id: number, itemId: number) {
  expectError(await call(m, 'POST', `/lists/${id}/items`, { items: [{ type: 'movie', movieDbId: SPIRITED_AWAY }] }), 409, 'conflict');
  expectError(await call(m, 'DELETE', `/lists/${id}/items/${itemId}`), 409, 'conflict');
  expectError(await call(m, 'POST', `/lists/${id}/items/reorder`, { itemIds: [itemId] }), 409, 'conflict');
}

describe('dynamic lists', () => {
  it('computes items from the filters at creation, with the sync fields true', async () => {
    const before = Date.now();
    const res = await call(owner, 'POST', '/lists', { name: 'Top shows', dynamicListFilters: { type: 'show', sort: 'name', size: 4 } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ isDynamicList: true, itemCount: 4, itemBreakdown: { movies: 0, shows: 4, anime: 0 }, lastSyncedAt: expect.stringMatching(ISO) });
    const id = res.body.id as number;
    const d = await detail(owner, id);
    expect(d).toMatchObject({
      isDynamicList: true, dynamicListSyncState: 'synced', lastSyncError: null, externalSource: null, externalUrl: null,
      dynamicListFilters: { type: 'show', sort: 'name', size: 4 }, lastSyncedAt: expect.stringMatching(ISO), dynamicListLastFullSyncedAt: expect.stringMatching(ISO),
    });
    expect(Date.parse(d.lastSyncedAt as string)).toBeGreaterThanOrEqual(before - 1000);
    const names = await query<{ movie_db_id: number }>(em(), { text: `select movie_db_id from title where type = 'show' order by search_name, id limit 4`, params: [] });
    expect(d.items.map((i) => i.movieDbId)).toEqual(names.map((n) => n.movie_db_id));
    await expectReadOnlyItems(owner, id, d.items[0]!.id);
  });

  it('filters by genre, years, anime, rating and language; validates filters', async () => {
    const res = await call(owner, 'POST', '/lists', { name: 'Animation', dynamicListFilters: { genres: ['animation'], type: 'movie', yearFrom: 1990, yearTo: 2005, anime: false, minRating: 7, language: 'ja' } });
    expect(res.status).toBe(200);
    expect((await detail(owner, res.body.id as number)).items.map((i) => i.movieDbId)).toEqual([SPIRITED_AWAY]);
    expectError(await call(owner, 'POST', '/lists', { name: 'x', dynamicListFilters: { size: 501 } }), 400, 'invalid_request');
    expectError(await call(owner, 'POST', '/lists', { name: 'x', dynamicListFilters: { size: 0 } }), 400, 'invalid_request');
    expectError(await call(owner, 'POST', '/lists', { name: 'x', dynamicListFilters: { yearFrom: 2000, yearTo: 1990 } }), 400, 'invalid_request');
    expectError(await call(owner, 'POST', '/lists', { name: 'x', dynamicListFilters: { colour: 'red' } }), 400, 'invalid_request');
    expect((await call(owner, 'POST', '/lists', { name: 'x', dynamicListFilters: { size: 500 } })).status).toBe(200);
  });

  it('recomputes when the owner changes the filters; collaborators may not', async () => {
    const res = await call(owner, 'POST', '/lists', { name: 'Shows', dynamicListFilters: { type: 'show', size: 2, sort: 'name' } });
    const id = res.body.id as number;
    await call(owner, 'POST', `/lists/${id}/collaborators`, { username: 'friend' });
    await call(friend, 'POST', `/lists/${id}/collaborators/accept`);
    expectError(await call(friend, 'PATCH', `/lists/${id}`, { dynamicListFilters: { type: 'movie' } }), 404, 'not_found');
    await expectReadOnlyItems(friend, id, (await detail(owner, id)).items[0]!.id);
    const firstSync = (await detail(owner, id)).dynamicListLastFullSyncedAt as string;
    const patched = await call(owner, 'PATCH', `/lists/${id}`, { dynamicListFilters: { type: 'movie', genres: ['Animation'], size: 10 } });
    expect(patched.body).toMatchObject({ itemCount: 2, itemBreakdown: { movies: 2, shows: 0, anime: 0 } });
    const d = await detail(owner, id);
    expect(d.items.every((i) => i.type === 'movie')).toBe(true);
    expect(d.dynamicListSyncState).toBe('synced');
    expect(Date.parse(d.dynamicListLastFullSyncedAt as string)).toBeGreaterThanOrEqual(Date.parse(firstSync));
    // Renaming keeps it dynamic and its items.
    expect((await call(owner, 'PATCH', `/lists/${id}`, { name: 'Animated films' })).body).toMatchObject({ name: 'Animated films', isDynamicList: true, itemCount: 2 });
  });

  it('the job refreshes due lists: pending -> syncing -> synced, new catalog titles included; a claimed list is skipped', async () => {
    const res = await call(owner, 'POST', '/lists', { name: 'Newest', dynamicListFilters: { type: 'movie', sort: 'name', size: 100 } });
    const id = res.body.id as number;
    const count = res.body.itemCount as number;
    await query(em(), { text: `insert into title (type, movie_db_id, category, name, year, source) values ('movie', 777001, 'movie', 'AAA New Film', 2026, 'test')`, params: [] });
    // Not due yet: synced just now.
    expect(await dueLists(em(), 100)).not.toContain(String(id));
    await query(em(), { text: `update list set sync_state = 'pending' where id = $1`, params: [id] });
    expect(await dueLists(em(), 100)).toContain(String(id));
    // Another run holds it: skipped.
    await query(em(), { text: `update list set sync_state = 'syncing', sync_started_at = now() where id = $1`, params: [id] });
    expect(await syncList(em(), String(id))).toBe('skipped');
    // That run died long ago: taken over.
    await query(em(), { text: `update list set sync_started_at = now() - interval '1 hour' where id = $1`, params: [id] });
    // (The app's own job may get there first; either way the list ends synced.)
    await syncDueLists(em(), 100);
    const d = await detail(owner, id);
    expect(d).toMatchObject({ dynamicListSyncState: 'synced', itemCount: count + 1 });
    expect(d.items[0]!.movieDbId).toBe(777001);
  });
});

describe('external lists', () => {
  it('imports a Letterboxd list file through the CLI: matched titles in order, read-only through the API', async () => {
    const file = path.join(FIXTURES, 'letterboxd-list.csv');
    const r = await runAdmin(app, 'list:import', '--user', 'owner', '--source', 'letterboxd', '--file', file, '--name', 'From Letterboxd', '--public');
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const made = JSON.parse(r.stdout) as { id: number };
    expect(made).toMatchObject({ name: 'From Letterboxd', isPublic: true, isDynamicList: false, itemCount: 2, lastSyncedAt: expect.stringMatching(ISO) });
    const d = await detail(owner, made.id);
    expect(d).toMatchObject({
      externalSource: 'letterboxd', externalUrl: `file://${file}`, dynamicListSyncState: 'synced', lastSyncError: null,
      dynamicListFilters: null, dynamicListLastFullSyncedAt: null, isDynamicList: false,
    });
    expect(d.items.map((i) => i.movieDbId)).toEqual([SPIRITED_AWAY, 862]);
    const mine = (await call(owner, 'GET', '/me/lists')).body.items as { id: number; externalSource: string | null }[];
    expect(mine.find((l) => l.id === made.id)!.externalSource).toBe('letterboxd');
    await expectReadOnlyItems(owner, made.id, d.items[0]!.id);
    expectError(await call(owner, 'PATCH', `/lists/${made.id}`, { name: 'Renamed' }), 409, 'conflict');
    expectError(await call(owner, 'POST', `/lists/${made.id}/collaborators`, { username: 'friend' }), 409, 'conflict');
    // The owner may still delete it.
    expect((await call(owner, 'DELETE', `/lists/${made.id}`)).status).toBe(200);
  });

  it('imports a Trakt list file (movies and shows by movie_db_id; episodes skipped)', async () => {
    const list = await createExternalList(em(), owner.userId, { name: 'Trakt', source: 'trakt', url: `file://${path.join(FIXTURES, 'trakt-list.csv')}` });
    const d = await detail(owner, list.id);
    expect(d.items.map((i) => [i.type, i.movieDbId])).toEqual([['show', FIRST_SHOW], ['movie', SPIRITED_AWAY], ['movie', 862]]);
    expect(list.itemBreakdown).toEqual({ movies: 2, shows: 1, anime: 0 });
  });

  it('refreshes from the file; a missing file fails the refresh and keeps the items', async () => {
    const file = path.join(tmp, 'list.csv');
    fs.writeFileSync(file, 'Date,Name,Year,Letterboxd URI\n2026-01-01,Spirited Away,2001,https://boxd.it/x\n');
    const list = await createExternalList(em(), owner.userId, { name: 'Changing', source: 'letterboxd', url: file });
    expect(list.itemCount).toBe(1);
    fs.appendFileSync(file, '2026-01-02,Toy Story,1995,https://boxd.it/y\n');
    await query(em(), { text: `update list set sync_state = 'pending' where id = $1`, params: [list.id] });
    await syncDueLists(em(), 100);
    expect((await detail(owner, list.id)).items.map((i) => i.movieDbId)).toEqual([SPIRITED_AWAY, 862]);

    const synced = (await detail(owner, list.id)).lastSyncedAt;
    fs.rmSync(file);
    expect(await syncList(em(), String(list.id))).toBe('failed');
    const d = await detail(owner, list.id);
    expect(d).toMatchObject({ dynamicListSyncState: 'failed', lastSyncError: expect.stringContaining('not found'), lastSyncedAt: synced, itemCount: 2 });
    fs.writeFileSync(file, 'Date,Name,Year,Letterboxd URI\n2026-01-01,Toy Story,1995,https://boxd.it/y\n');
    expect(await syncList(em(), String(list.id))).toBe('synced');
    expect(await detail(owner, list.id)).toMatchObject({ dynamicListSyncState: 'synced', lastSyncError: null, itemCount: 1 });
  });

  it('refuses anything but a local file, and CLI mistakes with usage', async () => {
    await expect(createExternalList(em(), owner.userId, { name: 'Remote', source: 'letterboxd', url: 'https://letterboxd.com/x/list.csv' })).rejects.toThrow('local files only');
    const noFile = await runAdmin(app, 'list:import', '--user', 'owner', '--source', 'letterboxd', '--file', path.join(tmp, 'missing.csv'));
    expect(noFile.code).toBe(2);
    expect(noFile.stderr).toContain('no such file');
  });
});

describe('featured lists (admin CLI)', () => {
  it('list:feature marks a public list; title detail data shows it while public; list:unfeature removes it', async () => {
    const res = await call(owner, 'POST', '/lists', { name: 'Essentials', isPublic: true });
    const id = res.body.id as number;
    await call(owner, 'POST', `/lists/${id}/items`, { items: [{ type: 'movie', movieDbId: SPIRITED_AWAY }] });
    await call(friend, 'POST', `/lists/${id}/like`);
    const [spirited] = await query<{ id: string }>(em(), { text: `select id from title where type = 'movie' and movie_db_id = $1`, params: [SPIRITED_AWAY] });
    const [toy] = await query<{ id: string }>(em(), { text: `select id from title where type = 'movie' and movie_db_id = 862`, params: [] });

    const r = await runAdmin(app, 'list:feature', String(id));
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ id, isFeatured: true });
    expect((await detail(owner, id)).isFeatured).toBe(true);
    const featured = await featuredListsForTitle(em(), String(spirited!.id));
    expect(featured).toEqual([expect.objectContaining({ id, name: 'Essentials', ownerUsername: 'owner', itemCount: 1, likeCount: 1 })]);
    expect(await featuredListsForTitle(em(), String(toy!.id))).toEqual([]);

    // Made private: no longer shown; a private list cannot be featured.
    await call(owner, 'PATCH', `/lists/${id}`, { isPublic: false });
    expect(await featuredListsForTitle(em(), String(spirited!.id))).toEqual([]);
    const priv = await call(owner, 'POST', '/lists', { name: 'Secret' });
    const refused = await runAdmin(app, 'list:feature', String(priv.body.id));
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('conflict');

    const un = await runAdmin(app, 'list:unfeature', String(id));
    expect(JSON.parse(un.stdout)).toEqual({ id, isFeatured: false });
  });
});
