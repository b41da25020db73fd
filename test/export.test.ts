// The full export over real HTTP: a user with data in every resource gets one document that the
// schema accepts and that holds exactly what was written; the endpoint is for official apps holding
// every read scope, counted in a bucket of its own; /trpc answers the same document. Then the `own`
// importer reads that document back into records, refuses what is not one, and the own-kind appliers
// applied twice leave the same state.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCOPES } from '../src/core/apps/scopes.ts';
import { query } from '../src/core/db/sql.ts';
import { EXPORT_ARRAY_NAMES, EXPORT_FORMAT, EXPORT_VERSION, exportDocument, type ExportDocument, type ExportTitle } from '../src/core/export/schema.ts';
import { applyOwnRecords } from '../src/core/import/apply-own-kinds.ts';
import { ImportFileError, isOwnRecord, type ImportRecord } from '../src/core/import/records.ts';
import { ownImporter } from '../src/core/import/sources/own.ts';
import { limitById } from '../src/core/limits/table.ts';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { expectError } from './helpers/envelope.ts';
import { addSpecial, DROPPED_SHOW, exporter, exportOf, PLANNED_SHOW, seedLibrary, TOY_STORY } from './helpers/export-seed.ts';
import { makeApp } from './helpers/oauth.ts';
import { FIRST_SHOW, member, seedCatalog, SPIRITED_AWAY, tokenWith, type Member } from './helpers/seed.ts';
import { issueToken } from './helpers/tokens.ts';

let app: TestApp;
let alice: Member;
let doc: ExportDocument;
let text: string;
const em = () => app.db.orm.em.fork();
const sql = <T>(text: string, params: unknown[]) => query<T>(em(), { text, params });
const iso = (d: Date) => d.toISOString();

beforeAll(async () => {
  app = await startTestApp({ RATE_LIMITS: 'on' });
  await seedCatalog(app, { shows: 3 });
  await addSpecial(app);
  alice = await exporter(app, 'alice_export');
  await seedLibrary(app, alice);
  const res = await exportOf(app, alice.token);
  expect(res.status).toBe(200);
  text = res.text;
  doc = exportDocument.parse(res.body);
});
afterAll(() => app?.stop());

async function title(type: 'movie' | 'show', movieDbId: number): Promise<ExportTitle> {
  const [t] = await sql<ExportTitle>(
    'select type, category, movie_db_id, tv_db_id, film_db_id, anime_db_id, external_ids, name, year from title where type = $1 and movie_db_id = $2',
    [type, movieDbId],
  );
  return t!;
}

/** When the server stamped a row (favourites, list items, collection, Continue Watching), as the export writes it. */
async function stamp(text: string, params: unknown[]): Promise<string> {
  const [row] = await sql<{ at: Date }>(text, params);
  return iso(row!.at);
}

describe('GET /me/export', () => {
  it('answers a document the schema accepts, holding exactly what was written', async () => {
    const spirited = await title('movie', SPIRITED_AWAY);
    const toy = await title('movie', TOY_STORY);
    const show = await title('show', FIRST_SHOW);
    const dropped = await title('show', DROPPED_SHOW);
    const planned = await title('show', PLANNED_SHOW);
    const [user] = await sql<{ id: string; created_at: Date }>('select id, created_at from app_user where username = $1', ['alice_export']);
    const favouritedAt = (titleName: string) => stamp(`select s.favourited_at as at from user_title_state s join title t on t.id = s.title_id where s.user_id = $1 and t.name = $2`, [user!.id, titleName]);
    const addedAt = (list: string, titleName: string) =>
      stamp(`select i.added_at as at from list_item i join list l on l.id = i.list_id join title t on t.id = i.title_id where l.owner_id = $1 and l.name = $2 and t.name = $3`, [user!.id, list, titleName]);
    const collected = (format: string) => stamp(`select added_at as at from collection_item where user_id = $1 and format = $2`, [user!.id, format]);
    const cwAt = (titleName: string) => stamp(`select c.updated_at as at from continue_watching c join title t on t.id = c.title_id where c.user_id = $1 and t.name = $2`, [user!.id, titleName]);

    const expected: ExportDocument = {
      format: EXPORT_FORMAT,
      version: EXPORT_VERSION,
      exported_at: doc.exported_at,
      profile: { username: 'alice_export', display_name: 'Alice Export', avatar_url: null, bio: 'I watch things', privacy: 'private', joined_at: iso(user!.created_at) },
      preferences: { region: 'DE', language: 'en-GB', spoilers: { hide_episode_titles: false, hide_overviews: false, hide_images: true, hide_ratings: false }, watched_threshold: 0.8 },
      notification_preferences: {
        list_invitation: { in_app: true, push: true },
        list_liked: { in_app: false, push: true },
        new_episode: { in_app: true, push: false },
        trophy_earned: { in_app: true, push: true },
      },
      history: [
        { title: spirited, season: null, episode: null, watched_at: '2024-01-02T20:00:00.000Z', runtime_minutes: 125 },
        { title: show, season: 1, episode: 1, watched_at: '2024-02-01T20:00:00.000Z', runtime_minutes: expect.any(Number) as unknown as number },
        { title: show, season: 1, episode: 2, watched_at: '2024-02-02T20:00:00.000Z', runtime_minutes: expect.any(Number) as unknown as number },
        { title: show, season: 0, episode: 1, watched_at: '2024-02-03T20:00:00.000Z', runtime_minutes: 12 },
      ],
      ratings: [
        { title: spirited, scope: 'title', season: null, episode: null, rating: 9, rated_at: '2024-01-03T10:00:00.000Z' },
        { title: show, scope: 'series', season: null, episode: null, rating: 8, rated_at: '2024-02-04T10:00:00.000Z' },
        { title: show, scope: 'season', season: 1, episode: null, rating: 7, rated_at: '2024-02-05T10:00:00.000Z' },
        { title: show, scope: 'episode', season: 1, episode: 1, rating: 10, rated_at: '2024-02-06T10:00:00.000Z' },
      ],
      // By the title state's id: the first show's state was made by its first watch, before the favourites.
      favourites: [
        { title: show, favourited_at: await favouritedAt(show.name) },
        { title: spirited, favourited_at: await favouritedAt(spirited.name) },
      ],
      show_statuses: [
        { title: show, status: 'watching', set_by: 'auto' },
        { title: dropped, status: 'dropped', set_by: 'user' },
        { title: planned, status: 'planned', set_by: 'user' },
      ],
      watchlist: [
        { title: toy, added_at: await addedAt('Watchlist', toy.name) },
        { title: planned, added_at: await addedAt('Watchlist', planned.name) },
      ],
      lists: [
        {
          name: 'Best of',
          description: 'Top picks',
          is_public: true,
          kind: 'plain',
          dynamic_filters: null,
          external_source: null,
          items: [
            { title: toy, added_at: await addedAt('Best of', toy.name) },
            { title: show, added_at: await addedAt('Best of', show.name) },
            { title: spirited, added_at: await addedAt('Best of', spirited.name) },
          ],
        },
        { name: 'Someday', description: '', is_public: false, kind: 'plain', dynamic_filters: null, external_source: null, items: [] },
      ],
      collection: [
        { title: spirited, format: 'bluray', season: null, notes: 'Steelbook', added_at: await collected('bluray') },
        { title: show, format: 'dvd', season: 1, notes: '', added_at: await collected('dvd') },
      ],
      continue_watching: [
        { title: toy, season: null, episode: null, progress: 0.4, position_seconds: 1944, duration_seconds: 4860, updated_at: await cwAt(toy.name) },
        { title: dropped, season: 1, episode: 2, progress: 0.5, position_seconds: null, duration_seconds: null, updated_at: await cwAt(dropped.name) },
      ],
    };
    expect(doc).toEqual(expected);
    // The title names every id the catalog has: Spirited Away's film database id is there.
    expect(spirited.film_db_id).toBe('tt0245429');
    // The members in the documented order, the head first.
    expect(Object.keys(JSON.parse(text) as object)).toEqual(['format', 'version', 'exported_at', 'profile', 'preferences', 'notification_preferences', ...EXPORT_ARRAY_NAMES]);
    expect(Date.now() - Date.parse(doc.exported_at)).toBeLessThan(60_000);
  });

  it('is a JSON attachment with the export bucket\'s rate-limit headers', async () => {
    const m = await exporter(app, 'bucket_export');
    const first = await exportOf(app, m.token);
    expect(first.status).toBe(200);
    expect(first.headers.get('content-type')).toBe('application/json');
    expect(first.headers.get('content-disposition')).toMatch(new RegExp(`^attachment; filename="${EXPORT_FORMAT}-\\d{4}-\\d{2}-\\d{2}\\.json"$`));
    expect(first.headers.get('cache-control')).toBe('no-store');
    const points = limitById('export').points;
    expect(first.headers.get('x-ratelimit-limit')).toBe(String(points));
    expect(first.headers.get('x-ratelimit-remaining')).toBe(String(points - 1));
    expect(Number(first.headers.get('x-ratelimit-reset'))).toBeGreaterThan(Date.now() / 1000);
    // A user's bucket, whichever app asks: a second official app of the same user draws from it.
    const other = await makeApp(app, { official: true, scopes: [...SCOPES] });
    const second = await issueToken(app, { userId: m.userId, clientId: other.client_id, scope: SCOPES.join(' ') });
    for (let i = 1; i < points; i++) expect((await exportOf(app, i % 2 ? second : m.token)).status).toBe(200);
    const refused = await fetch(`${app.url}/api/platform/v1/me/export`, { headers: { authorization: `Bearer ${second}` } });
    const body = (await refused.json()) as Record<string, unknown>;
    expectError({ status: refused.status, body, headers: refused.headers }, 429, 'rate_limited', { retry_after: expect.any(Number) });
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(refused.headers.get('x-ratelimit-limit')).toBe(String(points));
    expect(refused.headers.get('x-ratelimit-remaining')).toBe('0');
  });

  it('refuses apps that are not official with 403 first_party_only', async () => {
    const m = await member(app, 'third_party_export', [...SCOPES]);
    const res = await fetch(`${app.url}/api/platform/v1/me/export`, { headers: { authorization: `Bearer ${m.token}` } });
    expectError({ status: res.status, body: (await res.json()) as Record<string, unknown>, headers: res.headers }, 403, 'first_party_only');
  });

  it('needs every read scope: 403 insufficient_scope names the first one missing; no token is 401', async () => {
    const lacking = await tokenWith(app, alice, SCOPES.filter((s) => s !== 'collection:read'));
    const res = await fetch(`${app.url}/api/platform/v1/me/export`, { headers: { authorization: `Bearer ${lacking}` } });
    expectError({ status: res.status, body: (await res.json()) as Record<string, unknown>, headers: res.headers }, 403, 'insufficient_scope', { required_scope: 'collection:read' });
    const none = await fetch(`${app.url}/api/platform/v1/me/export`);
    expectError({ status: none.status, body: (await none.json()) as Record<string, unknown>, headers: none.headers }, 401, 'invalid_token');
  });

  it('is the same document over /trpc', async () => {
    const res = await fetch(`${app.url}/trpc/platform.export.document`, { headers: { authorization: `Bearer ${alice.token}` } });
    expect(res.status).toBe(200);
    const data = ((await res.json()) as { result: { data: ExportDocument } }).result.data;
    expect({ ...data, exported_at: doc.exported_at }).toEqual(doc);
  });

  it('is described in the OpenAPI document with every scope it needs and its bucket', async () => {
    const spec = (await (await fetch(`${app.url}/api/platform/v1/openapi.json`)).json()) as { paths: Record<string, Record<string, { security: unknown; description: string }>> };
    const op = spec.paths['/me/export']!.get!;
    expect(op.security).toEqual([{ oauth2: ['profile:read', 'history:read', 'ratings:read', 'lists:read', 'collection:read', 'playback:read', 'notifications:read'] }]);
    expect(op.description).toContain('Scopes: all of `profile:read`');
    expect(op.description).toContain('first_party_only');
  });
});

describe('a large library', () => {
  it('pages through every row once, in order, across pages and equal watch times', async () => {
    const dave = await exporter(app, 'dave_large_export');
    // 2,500 watches (EXPORT_PAGE is 1,000), every fifth sharing its time with the one before: the id breaks the tie.
    await sql(
      `insert into watch_history (user_id, title_id, watched_at, source)
       select $1, t.id, timestamptz '2020-01-01T00:00:00.123456Z' + ((g - (g % 5 = 0)::int) * interval '1 minute'), 'api'
       from generate_series(1, 2500) g, title t where t.type = 'movie' and t.movie_db_id = $2`,
      [dave.userId, SPIRITED_AWAY],
    );
    const res = await exportOf(app, dave.token);
    expect(res.status).toBe(200);
    expect(res.headers.get('transfer-encoding')).toBe('chunked');
    const d = exportDocument.parse(res.body);
    const [{ times }] = (await sql<{ times: Date[] }>(
      'select array_agg(watched_at order by watched_at, id) as times from watch_history where user_id = $1',
      [dave.userId],
    )) as [{ times: Date[] }];
    expect(d.history.map((h) => h.watched_at)).toEqual(times.map(iso));
    expect(d.history).toHaveLength(2500);
  });
});

/** The file as an upload arrives: in small pieces, cut anywhere (inside strings and numbers too). */
async function* pieces(body: string, size = 97): AsyncGenerator<Uint8Array> {
  const bytes = new TextEncoder().encode(body);
  for (let i = 0; i < bytes.length; i += size) yield bytes.subarray(i, i + size);
}

async function recordsOf(body: string): Promise<ImportRecord[]> {
  const out: ImportRecord[] = [];
  for await (const r of ownImporter(pieces(body))) out.push(r);
  return out;
}

async function refusal(body: string): Promise<string> {
  try {
    await recordsOf(body);
  } catch (err) {
    expect(err).toBeInstanceOf(ImportFileError);
    return (err as Error).message;
  }
  throw new Error('the importer read it');
}

describe('the own importer', () => {
  it('turns the export into records: the head\'s, then one per element, in document order', async () => {
    const records = await recordsOf(text);
    const kinds = records.map((r) => r.kind);
    expect(kinds).toEqual([
      'own_profile', 'own_preferences', 'own_notification_preferences',
      'history', 'history', 'history', 'history',
      'rating', 'rating', 'rating', 'rating',
      'own_favourite', 'own_favourite',
      'own_show_status', 'own_show_status', 'own_show_status',
      'own_watchlist_item', 'own_watchlist_item',
      'own_list', 'own_list',
      'own_collection_item', 'own_collection_item',
      'own_continue_watching', 'own_continue_watching',
    ]);
    const ref = (t: ExportTitle) => ({ type: t.type, movie_db_id: t.movie_db_id, tv_db_id: t.tv_db_id, film_db_id: t.film_db_id, anime_db_id: t.anime_db_id, title: t.name, year: t.year });
    const [spiritedWatch, , , special] = doc.history;
    expect(records[0]).toEqual({ at: { file: 'profile', row: 1, label: 'alice_export' }, kind: 'own_profile', profile: { display_name: 'Alice Export', avatar_url: null, bio: 'I watch things', privacy: 'private' } });
    expect(records[3]).toEqual({
      at: { file: 'history', row: 1, label: `Spirited Away (2001), movie ${SPIRITED_AWAY}` },
      kind: 'history',
      item: { movie_db_id: SPIRITED_AWAY, tv_db_id: null, film_db_id: 'tt0245429', anime_db_id: null, title: 'Spirited Away', year: 2001, watched_at: spiritedWatch!.watched_at, season: null, episode: null, runtime_minutes: 125 },
    });
    expect(records[6]).toMatchObject({ at: { file: 'history', row: 4 }, kind: 'history', item: { movie_db_id: FIRST_SHOW, season: 0, episode: 1, watched_at: special!.watched_at } });
    expect(records[9]).toEqual({
      at: { file: 'ratings', row: 3, label: `${doc.ratings[2]!.title.name} (${doc.ratings[2]!.title.year}) season 1, show ${FIRST_SHOW}` },
      kind: 'rating',
      item: { ...ref(doc.ratings[2]!.title), season: 1, episode: null, rating: 7, rated_at: '2024-02-05T10:00:00.000Z' },
    });
    expect(records[12]).toEqual({ at: expect.objectContaining({ file: 'favourites', row: 2 }), kind: 'own_favourite', title: ref(doc.favourites[1]!.title), favourited_at: doc.favourites[1]!.favourited_at });
    expect(records[14]).toEqual({ at: expect.objectContaining({ file: 'show_statuses', row: 2 }), kind: 'own_show_status', title: ref(doc.show_statuses[1]!.title), status: 'dropped', set_by: 'user' });
    const best = doc.lists[0]!;
    expect(records[18]).toEqual({
      at: { file: 'lists', row: 1, label: 'Best of' },
      kind: 'own_list',
      name: 'Best of',
      description: 'Top picks',
      is_public: true,
      list_kind: 'plain',
      dynamic_filters: null,
      items: best.items.map((i, n) => ({ title: ref(i.title), added_at: i.added_at, at: { file: 'lists/1', row: n + 1, label: `${i.title.name} (${i.title.year}), ${i.title.type} ${i.title.movie_db_id}` } })),
    });
    expect(records[20]).toEqual({ at: expect.objectContaining({ file: 'collection', row: 1 }), kind: 'own_collection_item', title: ref(doc.collection[0]!.title), format: 'bluray', season: null, notes: 'Steelbook', added_at: doc.collection[0]!.added_at });
    const cw = doc.continue_watching[1]!;
    expect(records[23]).toEqual({
      at: expect.objectContaining({ file: 'continue_watching', row: 2 }),
      kind: 'own_continue_watching',
      title: ref(cw.title),
      season: 1,
      episode: 2,
      progress: 0.5,
      position_seconds: null,
      duration_seconds: null,
      updated_at: cw.updated_at,
    });
  });

  it('refuses a wrong format, an unknown version, a malformed or truncated document, and garbage', async () => {
    const withHead = (head: string) => `{${head},"history":[]}`;
    expect(await refusal(withHead('"format":"trakt-export","version":1'))).toBe(`This is not a ${EXPORT_FORMAT} document: its format is "trakt-export"`);
    expect(await refusal(withHead(`"format":"${EXPORT_FORMAT}","version":2`))).toBe(`This export's version 2 is not one this service reads (it reads version ${EXPORT_VERSION})`);
    expect(await refusal('{"history":[]}')).toBe(`This is not a ${EXPORT_FORMAT} document: it has no format before its data`);
    expect(await refusal(`{"format":"${EXPORT_FORMAT}"}`)).toBe(`This is not a ${EXPORT_FORMAT} document: it has no version`);
    expect(await refusal('[1,2,3]')).toBe(`This is not a ${EXPORT_FORMAT} document: it is not a JSON object`);
    expect(await refusal(text.slice(0, Math.floor(text.length / 2)))).toBe('The export ends too early: the file is truncated');
    expect(await refusal('PK\u0003\u0004 garbage that is no JSON at all')).toMatch(/^This is not a readable JSON document: /);
    const broken = text.replace('"rating":9', '"rating":11');
    expect(await refusal(broken)).toMatch(/^The export is malformed at ratings\[0\]: rating: /);
    expect(await refusal(`${text.trimEnd()} {}`)).toMatch(/^(The export has more after its end|This is not a readable JSON document: )/);
  });
});

describe('the own-kind appliers', () => {
  async function stateOf(userId: string) {
    const [changes] = await sql<{ n: number }>('select count(*)::int as n from change_log where user_id = $1', [userId]);
    const m = { userId, token: await tokenWith(app, bob, [...SCOPES]), username: bob.username, clientId: bob.clientId };
    const exported = await exportOf(app, m.token);
    return { changes: changes!.n, doc: { ...exported.body, exported_at: null } };
  }
  let bob: Member;

  it('applied twice give the same state: the second run changes nothing and records nothing', async () => {
    bob = await exporter(app, 'bob_own_kinds');
    const own = (await recordsOf(text)).filter(isOwnRecord);
    const first = await applyOwnRecords(em(), bob.userId, own);
    expect(first.map((o) => o.status)).toEqual([
      'updated', 'updated', 'updated', // profile, preferences, notification preferences
      'inserted', 'inserted', // favourites
      'updated', 'updated', 'updated', // statuses
      'inserted', 'inserted', // watchlist
      'inserted', 'inserted', 'inserted', 'inserted', // Best of, its three items
      'inserted', // Someday
      'inserted', 'inserted', // collection
      'inserted', 'inserted', // Continue Watching
    ]);
    const after = await stateOf(bob.userId);
    const second = await applyOwnRecords(em(), bob.userId, own);
    expect(second.map((o) => o.at)).toEqual(first.map((o) => o.at));
    expect(new Set(second.map((o) => o.status))).toEqual(new Set(['unchanged']));
    expect(await stateOf(bob.userId)).toEqual(after);
    // What the own kinds carry came over exactly (the bulk kinds, history and ratings, are not theirs).
    const d = after.doc as unknown as ExportDocument;
    for (const key of ['preferences', 'notification_preferences', 'favourites', 'show_statuses', 'watchlist', 'lists', 'collection', 'continue_watching'] as const) {
      expect(d[key], key).toEqual(doc[key]);
    }
    expect({ ...d.profile, username: 'x', joined_at: 'x' }).toEqual({ ...doc.profile, username: 'x', joined_at: 'x' });
  });

  it('answers unmatched titles and refused records without failing the batch', async () => {
    const carol = await exporter(app, 'carol_own_kinds');
    const at = { file: 'favourites', row: 1, label: 'x' };
    const outcomes = await applyOwnRecords(em(), carol.userId, [
      { at, kind: 'own_favourite', title: { type: 'movie', movie_db_id: 999_999 }, favourited_at: '2024-01-01T00:00:00.000Z' },
      { at: { ...at, file: 'show_statuses' }, kind: 'own_show_status', title: { type: 'movie', movie_db_id: SPIRITED_AWAY }, status: 'dropped', set_by: 'user' },
      { at: { ...at, file: 'profile' }, kind: 'own_profile', profile: { display_name: 'x'.repeat(500), avatar_url: null, bio: '', privacy: 'public' } },
      { at: { ...at, file: 'lists' }, kind: 'own_list', name: 'Feed', description: '', is_public: false, list_kind: 'external', dynamic_filters: null, items: [] },
      { at: { ...at, file: 'collection' }, kind: 'own_collection_item', title: { type: 'movie', movie_db_id: SPIRITED_AWAY }, format: 'dvd', season: null, notes: '', added_at: '2024-01-01T00:00:00.000Z' },
    ]);
    expect(outcomes).toEqual([
      { at, status: 'unmatched', reason: null },
      { at: { ...at, file: 'show_statuses' }, status: 'skipped', reason: 'a movie\'s status is one of planned, completed' },
      { at: { ...at, file: 'profile' }, status: 'skipped', reason: 'display name must be 1 to 64 characters without control characters' },
      { at: { ...at, file: 'lists' }, status: 'skipped', reason: 'external lists are read from files the operator manages: not imported' },
      { at: { ...at, file: 'collection' }, status: 'inserted', reason: null },
    ]);
    const [row] = await sql<{ added_at: Date }>('select added_at from collection_item where user_id = $1', [carol.userId]);
    expect(iso(row!.added_at)).toBe('2024-01-01T00:00:00.000Z');
  });
});
