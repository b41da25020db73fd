// The list item add path's statements are compiled once per shape (src/core/db/compiled-once.ts): every
// shape they have is run here, so the check of a shape's first call (the template and a direct build
// agree) runs for each, including the shapes the HTTP API does not reach: no viewer for the items read,
// no user (locked or not) for the access read, and no adder for the append. Those come first in the file,
// before the API calls with a user make other shapes of the same statements.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { transaction } from '../src/core/db/transaction.ts';
import { listAccess } from '../src/core/lists/access.ts';
import { listAudience } from '../src/core/lists/changes.ts';
import { itemsById } from '../src/core/lists/item-records.ts';
import { addTitles } from '../src/core/lists/items.ts';
import { listRows } from '../src/core/lists/present.ts';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { member, ok, platform, seedCatalog, SPIRITED_AWAY, type Member } from './helpers/seed.ts';
import { sql, titleId, watch } from './helpers/title-fixtures.ts';

const TOY_STORY = 862;
const RW = ['lists:read', 'lists:write'];

let app: TestApp;
let owner: Member;
let friend: Member;
const em = () => app.db.orm.em.fork();

beforeAll(async () => {
  app = await startTestApp();
  await seedCatalog(app, { shows: 2 });
  owner = await member(app, 'cowner', RW);
  friend = await member(app, 'cfriend', RW);
});
afterAll(async () => {
  await app?.stop();
});

describe('list item add path, statements compiled once', () => {
  it('checks access without a user, locked or not, and with one', async () => {
    await sql(app, `update app_user set profile_privacy = 'public' where id = $1`, [owner.userId]);
    const open = await ok(platform(app, owner.token, 'POST', '/lists', { name: 'Open', isPublic: true }));
    const closed = await ok(platform(app, owner.token, 'POST', '/lists', { name: 'Closed' }));
    for (let i = 0; i < 2; i++) {
      expect(await listAccess(em(), open.id as number, null)).toMatchObject({ id: String(open.id), role: 'viewer', insider: false, isPublic: true });
      await expect(listAccess(em(), closed.id as number, null)).rejects.toMatchObject({ code: 'not_found' });
      await expect(transaction(em(), (tx) => listAccess(tx, open.id as number, null, { lock: true }))).resolves.toMatchObject({ role: 'viewer' });
      expect(await listAccess(em(), closed.id as number, owner.userId)).toMatchObject({ role: 'owner', insider: true });
      await expect(listAccess(em(), closed.id as number, friend.userId)).rejects.toMatchObject({ code: 'not_found' });
      await expect(listAccess(em(), 987_654_321, owner.userId)).rejects.toMatchObject({ code: 'not_found' });
    }
  });

  it('reads items without a viewer (watched false) and with one (watched from their history)', async () => {
    const list = await ok(platform(app, owner.token, 'POST', '/lists', { name: 'Viewers' }));
    const id = String(list.id);
    // Added by the core write, which reads no items: the first items read of this file is the one without a viewer.
    const titles = [await titleId(app, { type: 'movie', movieDbId: SPIRITED_AWAY }), await titleId(app, { type: 'movie', movieDbId: TOY_STORY })];
    await transaction(em(), (tx) => addTitles(tx, id, titles, owner.userId));
    await watch(app, owner.userId, { type: 'movie', movieDbId: TOY_STORY }, new Date('2024-01-01T00:00:00Z'));
    const ids = (await sql<{ id: string }>(app, 'select id from list_item where list_id = $1 order by position', [list.id])).map((r) => String(r.id));
    for (let i = 0; i < 2; i++) {
      const anonymous = await itemsById(em(), id, ids, null);
      const own = await itemsById(em(), id, ids, owner.userId);
      expect(anonymous.map((r) => [r.movieDbId, r.watched])).toEqual([[SPIRITED_AWAY, false], [TOY_STORY, false]]);
      expect(own.map((r) => [r.movieDbId, r.watched])).toEqual([[SPIRITED_AWAY, false], [TOY_STORY, true]]);
      expect(anonymous.map(({ watched: _w, ...rest }) => rest)).toEqual(own.map(({ watched: _w, ...rest }) => rest));
    }
  });

  it('adds titles (added, existing, not_found, a title twice), twice in a row: the same answers as a statement built per call', async () => {
    const list = await ok(platform(app, owner.token, 'POST', '/lists', { name: 'Compiled' }));
    const first = await ok(
      platform(app, owner.token, 'POST', `/lists/${list.id}/items`, {
        items: [{ type: 'movie', movieDbId: SPIRITED_AWAY }, { type: 'movie', movieDbId: 987_654_321 }, { type: 'movie', movieDbId: SPIRITED_AWAY }],
      }),
    );
    expect((first.results as { status: string }[]).map((r) => r.status)).toEqual(['added', 'not_found', 'existing']);
    // The second call of each shape fills the template made by the first.
    const second = await ok(
      platform(app, owner.token, 'POST', `/lists/${list.id}/items`, { items: [{ type: 'movie', movieDbId: TOY_STORY }, { type: 'movie', movieDbId: SPIRITED_AWAY }] }),
    );
    const results = second.results as { status: string; item: { movieDbId: number; watched: boolean } }[];
    expect(results.map((r) => [r.status, r.item.movieDbId])).toEqual([['added', TOY_STORY], ['existing', SPIRITED_AWAY]]);
    const detail = await ok(platform(app, owner.token, 'GET', `/lists/${list.id}`));
    expect(detail).toMatchObject({ itemCount: 2 });
    expect((await listRows(em(), [String(list.id)]))[0]).toMatchObject({ item_count: 2, movie_count: 2, show_count: 0, anime_count: 0 });
    expect((detail.items as { movieDbId: number }[]).map((i) => i.movieDbId)).toEqual([SPIRITED_AWAY, TOY_STORY]);
  });

  it('appends without an adder, and reads the audience and the list rows', async () => {
    const list = await ok(platform(app, owner.token, 'POST', '/lists', { name: 'No adder' }));
    const id = String(list.id);
    const spirited = await titleId(app, { type: 'movie', movieDbId: SPIRITED_AWAY });
    const toyStory = await titleId(app, { type: 'movie', movieDbId: TOY_STORY });
    for (const t of [spirited, toyStory]) {
      const added = await transaction(em(), (tx) => addTitles(tx, id, [t, t], null));
      expect(added.map((a) => a.status)).toEqual(['added', 'added']);
    }
    const rows = await sql<{ added_by: string | null }>(app, 'select added_by from list_item where list_id = $1', [id]);
    expect(rows).toEqual([{ added_by: null }, { added_by: null }]);
    expect(await listAudience(em(), id)).toEqual([owner.userId]);
    const [row] = await listRows(em(), [id]);
    expect(row).toMatchObject({ name: 'No adder', item_count: 2, owner_username: 'cowner' });
    expect((await listRows(em(), [id, '987654321', id])).length).toBe(2);
  });
});
