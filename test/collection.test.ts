// The collection over real HTTP: the exact item shape, adding (idempotent per title, format and season),
// changing and removing items with their change records, every bad input, the scopes, the title detail's
// collectionStatus, and paging by nextCursor over 5,000 items.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveTitle } from '../src/core/catalog/resolve.ts';
import { collectionStatusForTitle } from '../src/core/collection/for-title.ts';
import { query } from '../src/core/db/sql.ts';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { expectError } from './helpers/envelope.ts';
import { FIRST_SHOW, member, platform, seedCatalog, SPIRITED_AWAY, tokenWith, type Member } from './helpers/seed.ts';

let app: TestApp;
let alice: Member;
let bob: Member;
const em = () => app.db.orm.em.fork();
const RW = ['collection:read', 'collection:write'];

const ITEM_KEYS = ['addedAt', 'format', 'id', 'isAnime', 'kind', 'mediaSource', 'movieDbId', 'notes', 'posterPath', 'season', 'sourceId', 'title', 'type', 'year'];

beforeAll(async () => {
  app = await startTestApp();
  await seedCatalog(app, { shows: 2 });
  alice = await member(app, 'alice', RW);
  bob = await member(app, 'bob', RW);
});
afterAll(() => app?.stop());

const add = (m: Member, body: unknown) => platform(app, m.token, 'POST', '/me/collection', body);
const page = (m: Member, qs = '') => platform(app, m.token, 'GET', `/me/collection${qs}`);

async function changesOf(userId: string) {
  return query<{ resource_id: string; op: string; data: Record<string, unknown> | null }>(em(), {
    text: `select resource_id, op, data from change_log where user_id = $1 and resource = 'collection' order by xid, id`,
    params: [userId],
  });
}

async function titleId(type: 'movie' | 'show', movieDbId: number) {
  return (await resolveTitle(em(), { type, movieDbId }))!.id;
}

describe('adding items', () => {
  it('answers the exact item shape: season 0 and notes "" for a whole title without notes', async () => {
    const res = await add(alice, { type: 'movie', movieDbId: SPIRITED_AWAY, format: 'bluray' });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(ITEM_KEYS);
    expect(res.body).toEqual({
      id: expect.any(Number),
      movieDbId: SPIRITED_AWAY,
      type: 'movie',
      kind: 'movie',
      isAnime: expect.any(Boolean),
      mediaSource: 'movie_db',
      sourceId: SPIRITED_AWAY,
      season: 0,
      title: 'Spirited Away',
      year: 2001,
      posterPath: expect.any(String),
      format: 'bluray',
      notes: '',
      addedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
    });
    const [change] = (await changesOf(alice.userId)).slice(-1);
    expect(change).toEqual({ resource_id: String(res.body.id), op: 'upsert', data: res.body });
  });

  it('keeps one title in several formats and seasons, each its own item', async () => {
    const a = await add(alice, { type: 'show', movieDbId: FIRST_SHOW, format: 'dvd', season: 1, notes: 'Box set, disc 3 scratched' });
    const b = await add(alice, { type: 'show', movieDbId: FIRST_SHOW, format: 'bluray', season: 1 });
    const c = await add(alice, { type: 'show', movieDbId: FIRST_SHOW, format: 'dvd' });
    const d = await add(alice, { type: 'show', movieDbId: FIRST_SHOW, format: 'dvd', season: 2 });
    for (const r of [a, b, c, d]) expect(r.status).toBe(200);
    expect(new Set([a, b, c, d].map((r) => r.body.id)).size).toBe(4);
    expect(a.body).toMatchObject({ type: 'show', kind: 'show', season: 1, format: 'dvd', notes: 'Box set, disc 3 scratched' });
    expect(c.body).toMatchObject({ season: 0, format: 'dvd' });
  });

  it('adding the same title, format and season again answers the same item and records nothing', async () => {
    const first = await add(alice, { type: 'movie', movieDbId: SPIRITED_AWAY, format: 'digital' });
    const before = (await changesOf(alice.userId)).length;
    const again = await add(alice, { type: 'movie', movieDbId: SPIRITED_AWAY, format: 'digital' });
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    expect((await changesOf(alice.userId)).length).toBe(before);
    // With notes, adding again replaces them on the same item, and that change is recorded.
    const noted = await add(alice, { type: 'movie', movieDbId: SPIRITED_AWAY, format: 'digital', notes: '4K HDR copy' });
    expect(noted.body).toEqual({ ...first.body, notes: '4K HDR copy' });
    const changes = await changesOf(alice.userId);
    expect(changes.length).toBe(before + 1);
    expect(changes.at(-1)).toEqual({ resource_id: String(first.body.id), op: 'upsert', data: noted.body });
  });

  it('accepts notes of exactly 500 characters (code points) and refuses 501', async () => {
    const ok = await add(alice, { type: 'movie', movieDbId: SPIRITED_AWAY, format: 'vhs', notes: '🎬'.repeat(500) });
    expect(ok.status).toBe(200);
    expect(ok.body.notes).toBe('🎬'.repeat(500));
    expectError(await add(alice, { type: 'movie', movieDbId: SPIRITED_AWAY, format: 'laserdisc', notes: 'x'.repeat(501) }), 400, 'invalid_request');
  });

  it('refuses each bad input with the envelope and writes nothing', async () => {
    const before = (await changesOf(alice.userId)).length;
    const base = { type: 'movie', movieDbId: SPIRITED_AWAY, format: 'dvd' };
    for (const body of [
      { ...base, format: 'betamax' },
      { ...base, format: undefined },
      { ...base, type: 'anime' },
      { ...base, movieDbId: 0 },
      { ...base, movieDbId: 2_147_483_648 },
      { ...base, season: 1 },
      { type: 'show', movieDbId: FIRST_SHOW, format: 'dvd', season: 0 },
      { type: 'show', movieDbId: FIRST_SHOW, format: 'dvd', season: 1.5 },
      { ...base, notes: 5 },
      { ...base, extra: true },
    ]) {
      const res = await add(alice, body);
      expect({ body, status: res.status }).toEqual({ body, status: 400 });
      expectError(res, 400, 'invalid_request');
    }
    expectError(await add(alice, { ...base, movieDbId: 999_999_999 }), 404, 'not_found');
    expectError(await add(alice, { type: 'show', movieDbId: SPIRITED_AWAY, format: 'dvd' }), 404, 'not_found');
    expectError(await add(alice, { type: 'show', movieDbId: FIRST_SHOW, format: 'dvd', season: 999 }), 404, 'not_found');
    expect((await changesOf(alice.userId)).length).toBe(before);
  });
});

describe('changing and removing items', () => {
  it('changes format and notes, records the new item, and clears notes with ""', async () => {
    const item = (await add(bob, { type: 'movie', movieDbId: SPIRITED_AWAY, format: 'dvd', notes: 'Steelbook' })).body;
    const res = await platform(app, bob.token, 'PATCH', `/me/collection/${item.id}`, { format: 'uhd_bluray' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ...item, format: 'uhd_bluray' });
    expect((await changesOf(bob.userId)).at(-1)).toEqual({ resource_id: String(item.id), op: 'upsert', data: res.body });
    const cleared = await platform(app, bob.token, 'PATCH', `/me/collection/${item.id}`, { notes: '' });
    expect(cleared.body).toEqual({ ...item, format: 'uhd_bluray', notes: '' });
  });

  it('refuses a format another item of the same title and season has with 409 conflict', async () => {
    const dvd = (await add(bob, { type: 'show', movieDbId: FIRST_SHOW, format: 'dvd', season: 1 })).body;
    await add(bob, { type: 'show', movieDbId: FIRST_SHOW, format: 'bluray', season: 1 });
    const before = (await changesOf(bob.userId)).length;
    expectError(await platform(app, bob.token, 'PATCH', `/me/collection/${dvd.id}`, { format: 'bluray' }), 409, 'conflict');
    expect((await changesOf(bob.userId)).length).toBe(before);
    // The whole show in Blu-ray is another item: no conflict with season 1 in Blu-ray.
    const whole = (await add(bob, { type: 'show', movieDbId: FIRST_SHOW, format: 'dvd' })).body;
    expect((await platform(app, bob.token, 'PATCH', `/me/collection/${whole.id}`, { format: 'bluray' })).status).toBe(200);
  });

  it('refuses bad updates, and someone else\'s or a missing item is 404', async () => {
    const item = (await add(bob, { type: 'movie', movieDbId: SPIRITED_AWAY, format: 'hd_dvd' })).body;
    expectError(await platform(app, bob.token, 'PATCH', `/me/collection/${item.id}`, {}), 400, 'invalid_request');
    expectError(await platform(app, bob.token, 'PATCH', `/me/collection/${item.id}`, { format: 'cd' }), 400, 'invalid_request');
    expectError(await platform(app, bob.token, 'PATCH', `/me/collection/${item.id}`, { notes: 'x'.repeat(501) }), 400, 'invalid_request');
    expectError(await platform(app, bob.token, 'PATCH', `/me/collection/${item.id}`, { season: 2 }), 400, 'invalid_request');
    expectError(await platform(app, bob.token, 'PATCH', '/me/collection/abc', { notes: 'x' }), 400, 'invalid_request');
    expectError(await platform(app, bob.token, 'PATCH', '/me/collection/0', { notes: 'x' }), 400, 'invalid_request');
    expectError(await platform(app, alice.token, 'PATCH', `/me/collection/${item.id}`, { notes: 'mine now' }), 404, 'not_found');
    expectError(await platform(app, alice.token, 'DELETE', `/me/collection/${item.id}`), 404, 'not_found');
    expectError(await platform(app, bob.token, 'DELETE', '/me/collection/999999999'), 404, 'not_found');
    expect((await platform(app, bob.token, 'GET', `/me/collection?limit=200`)).body.items).toContainEqual(item);
  });

  it('removes an item, records the delete, and a second delete is 404', async () => {
    const item = (await add(bob, { type: 'movie', movieDbId: SPIRITED_AWAY, format: 'laserdisc' })).body;
    const res = await platform(app, bob.token, 'DELETE', `/me/collection/${item.id}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id: item.id, removed: true });
    expect((await changesOf(bob.userId)).at(-1)).toEqual({ resource_id: String(item.id), op: 'delete', data: null });
    expectError(await platform(app, bob.token, 'DELETE', `/me/collection/${item.id}`), 404, 'not_found');
    expect(((await page(bob, '?limit=200')).body.items as { id: number }[]).map((i) => i.id)).not.toContain(item.id);
  });
});

describe('scopes', () => {
  it('reads need collection:read, writes collection:write, and a token is required', async () => {
    const readOnly = { ...alice, token: await tokenWith(app, alice, ['collection:read']) };
    const writeOnly = { ...alice, token: await tokenWith(app, alice, ['collection:write', 'profile:read']) };
    expectError(await page(writeOnly), 403, 'insufficient_scope', { required_scope: 'collection:read' });
    expectError(await add(readOnly, { type: 'movie', movieDbId: SPIRITED_AWAY, format: 'dvd' }), 403, 'insufficient_scope', { required_scope: 'collection:write' });
    expectError(await platform(app, readOnly.token, 'PATCH', '/me/collection/1', { notes: 'x' }), 403, 'insufficient_scope', { required_scope: 'collection:write' });
    expectError(await platform(app, readOnly.token, 'DELETE', '/me/collection/1'), 403, 'insufficient_scope', { required_scope: 'collection:write' });
    expect((await page(readOnly)).status).toBe(200);
    expectError(await platform(app, null, 'GET', '/me/collection'), 401, 'invalid_token');
  });
});

describe('collectionStatus for the title detail', () => {
  it('says whether the user owns the title, in which formats, and each item with its season', async () => {
    const carol = await member(app, 'carol', RW);
    const show = await titleId('show', FIRST_SHOW);
    expect(await collectionStatusForTitle(em(), carol.userId, show)).toEqual({ owned: false, formats: [], items: [] });
    const s2 = (await add(carol, { type: 'show', movieDbId: FIRST_SHOW, format: 'digital', season: 2 })).body;
    const whole = (await add(carol, { type: 'show', movieDbId: FIRST_SHOW, format: 'bluray' })).body;
    const s1 = (await add(carol, { type: 'show', movieDbId: FIRST_SHOW, format: 'uhd_bluray', season: 1 })).body;
    await add(carol, { type: 'movie', movieDbId: SPIRITED_AWAY, format: 'vhs' });
    expect(await collectionStatusForTitle(em(), carol.userId, show)).toEqual({
      owned: true,
      formats: ['uhd_bluray', 'bluray', 'digital'],
      items: [
        { id: whole.id, format: 'bluray', season: 0 },
        { id: s1.id, format: 'uhd_bluray', season: 1 },
        { id: s2.id, format: 'digital', season: 2 },
      ],
    });
  });
});

describe('GET /me/collection', () => {
  let dave: Member;
  let animeIds: Set<number>;
  let allIds: Set<number>;

  beforeAll(async () => {
    dave = await member(app, 'dave', RW);
    // 715 titles x 7 formats, cut at 5,000 items; every third title is anime.
    await query(em(), {
      text: `insert into title (type, movie_db_id, category, is_anime, name, year, source)
        select 'movie', 7000000 + g, case when g % 3 = 0 then 'anime' else 'movie' end, g % 3 = 0, 'Paging title ' || g, 2000 + g % 20, 'test'
        from generate_series(1, 715) g`,
      params: [],
    });
    const rows = await query<{ id: string; is_anime: boolean }>(em(), {
      text: `insert into collection_item (user_id, title_id, format)
        select $1, t.id, f.format from title t
        cross join unnest(array['uhd_bluray', 'bluray', 'hd_dvd', 'dvd', 'digital', 'vhs', 'laserdisc']) as f(format)
        where t.movie_db_id > 7000000 and t.source = 'test'
        order by t.id, f.format limit 5000
        returning id, (select is_anime from title where id = title_id) as is_anime`,
      params: [dave.userId],
    });
    allIds = new Set(rows.map((r) => Number(r.id)));
    animeIds = new Set(rows.filter((r) => r.is_anime).map((r) => Number(r.id)));
  });

  async function walk(qs: string): Promise<number[]> {
    const ids: number[] = [];
    let cursor: string | undefined;
    for (;;) {
      const res = await page(dave, `?${qs}${cursor ? `&cursor=${cursor}` : ''}`);
      expect(res.status).toBe(200);
      ids.push(...(res.body.items as { id: number }[]).map((i) => i.id));
      cursor = res.body.nextCursor as string | undefined;
      if (!cursor) {
        expect(Object.keys(res.body)).toEqual(['items']);
        return ids;
      }
      expect(Object.keys(res.body).sort()).toEqual(['items', 'nextCursor']);
    }
  }

  it('pages through 5,000 items by nextCursor, each exactly once, newest first', async () => {
    expect(allIds.size).toBe(5000);
    const ids = await walk('limit=200');
    expect(ids).toHaveLength(5000);
    expect(new Set(ids)).toEqual(allIds);
    expect(ids).toEqual([...ids].sort((a, b) => b - a));
  });

  it('filters by type, anime apart from movies and shows, and pages the filtered set exactly once', async () => {
    const anime = await walk('type=anime&limit=150');
    expect(anime).toHaveLength(animeIds.size);
    expect(new Set(anime)).toEqual(animeIds);
    const movies = await walk('type=movie&limit=200');
    expect(movies).toHaveLength(allIds.size - animeIds.size);
    expect(movies.some((id) => animeIds.has(id))).toBe(false);
    expect((await page(dave, '?type=show')).body).toEqual({ items: [] });
  });

  it('defaults to 100 items, accepts 200, refuses 0, 201 and non-integers', async () => {
    const first = await page(dave);
    expect((first.body.items as unknown[]).length).toBe(100);
    expect(typeof first.body.nextCursor).toBe('string');
    expect(((await page(dave, '?limit=200')).body.items as unknown[]).length).toBe(200);
    expect(((await page(dave, '?limit=1')).body.items as unknown[]).length).toBe(1);
    for (const bad of ['0', '201', '-1', '1.5', 'ten']) {
      const res = await page(dave, `?limit=${bad}`);
      expect({ bad, status: res.status }).toEqual({ bad, status: 400 });
      expectError(res, 400, 'invalid_request');
    }
  });

  it('refuses a cursor sent with other query parameters, a made-up cursor, an unknown type and unknown parameters', async () => {
    const cursor = (await page(dave, '?type=movie&limit=50')).body.nextCursor as string;
    expect((await page(dave, `?type=movie&limit=50&cursor=${cursor}`)).status).toBe(200);
    expectError(await page(dave, `?type=anime&limit=50&cursor=${cursor}`), 400, 'invalid_request');
    expectError(await page(dave, `?limit=50&cursor=${cursor}`), 400, 'invalid_request');
    expectError(await page(dave, `?type=movie&limit=51&cursor=${cursor}`), 400, 'invalid_request');
    expectError(await page(dave, `?type=movie&cursor=${cursor}`), 400, 'invalid_request');
    expectError(await page(dave, '?cursor=bm90LWEtY3Vyc29y'), 400, 'invalid_request');
    expectError(await page(dave, '?type=book'), 400, 'invalid_request');
    expectError(await page(dave, '?sort=title'), 400, 'invalid_request');
  });

  it('shows each user only their own items', async () => {
    const items = (await page(alice, '?limit=200')).body.items as { id: number }[];
    expect(items.length).toBeGreaterThan(0);
    expect(items.some((i) => allIds.has(i.id))).toBe(false);
  });
});
