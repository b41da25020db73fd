// The round trip: a user's export, imported into a fresh account, exports again as the same document
// but for what the document marks as regenerated (when it was made, the account's username and join
// date). The import is the one a person runs: the file uploaded on /account/import as `own`, read by the
// `own` importer and written by the `imports` job. A second import of the same file changes nothing.
// The document's statuses are the statuses: a show watched and then cleared comes back without one,
// though the rules that move statuses on a watch would give it one.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { query } from '../src/core/db/sql.ts';
import { exportDocument, REGENERATED_FIELDS, type ExportDocument } from '../src/core/export/schema.ts';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { finished, signedIn, upload, type RunJson } from './helpers/imports.ts';
import { addSpecial, exporter, exportOf, seedLibrary } from './helpers/export-seed.ts';
import { FIRST_SHOW, platform, seedCatalog, type Member } from './helpers/seed.ts';
import { bulk } from './helpers/sync-client.ts';

let app: TestApp;
let alice: Member;
let original: { text: string; doc: ExportDocument };
/** Watched, then its status cleared by the user. */
const CLEARED_SHOW = FIRST_SHOW + 3;
const em = () => app.db.orm.em.fork();

beforeAll(async () => {
  app = await startTestApp({ IMPORT_INTERVAL_MS: '500' });
  await seedCatalog(app, { shows: 4 });
  await addSpecial(app);
  alice = await exporter(app, 'alice_trip');
  await seedLibrary(app, alice);
  const watched = await bulk(app, alice.token, 'history', [{ movie_db_id: CLEARED_SHOW, season: 1, episode: 1, watched_at: '2024-04-01T20:00:00.000Z' }]);
  expect(watched.body.inserted).toBe(1);
  expect(await statusOf(alice, CLEARED_SHOW)).toBe('watching');
  expect((await platform(app, alice.token, 'DELETE', `/show-status/show/${CLEARED_SHOW}`)).status).toBe(200);
  const res = await exportOf(app, alice.token);
  original = { text: res.text, doc: exportDocument.parse(res.body) };
  expect(original.doc.history.some((h) => h.title.movie_db_id === CLEARED_SHOW)).toBe(true);
  expect(original.doc.show_statuses.some((s) => s.title.movie_db_id === CLEARED_SHOW)).toBe(false);
});
afterAll(() => app?.stop());

/** The user's status of the show (null: none). */
async function statusOf(m: Member, movieDbId: number): Promise<string | null> {
  const rows = await query<{ show_status: string | null }>(em(), {
    text: `select s.show_status from user_title_state s join title t on t.id = s.title_id where s.user_id = $1 and t.type = 'show' and t.movie_db_id = $2`,
    params: [m.userId, movieDbId],
  });
  return rows[0]?.show_status ?? null;
}

/** Imports the document into `m`'s account as a person does: uploaded on /account/import as `own`, run by the job. */
async function importDocument(m: Member, text: string): Promise<RunJson> {
  const session = await signedIn(app, { id: m.userId, username: m.username });
  const res = await upload(app, session, { content: text, name: 'media-tracker-export.json' }, { source: 'own' });
  expect(res.status).toBe(303);
  const id = /^\/account\/import\/(\d+)$/.exec(res.headers.get('location')!)![1]!;
  return finished(app, session, id);
}

/** The document without what every export makes anew. */
function comparable(doc: ExportDocument): unknown {
  const copy = structuredClone(doc) as unknown as Record<string, Record<string, unknown>>;
  for (const path of REGENERATED_FIELDS) {
    const [head, field] = path.split('.') as [string, string | undefined];
    if (field) delete copy[head]![field];
    else delete copy[head];
  }
  return copy;
}

describe('export, import into a fresh account, export again', () => {
  it('gives the same document but for the regenerated fields; a second import changes nothing', async () => {
    const bob = await exporter(app, 'bob_trip');
    const first = await importDocument(bob, original.text);
    expect(first).toMatchObject({ status: 'done', error: null, unmatched: 0, invalid: 0 });
    expect(first.imported).toBeGreaterThan(0);
    const again = await exportOf(app, bob.token);
    expect(again.status).toBe(200);
    const doc = exportDocument.parse(again.body);
    expect(comparable(doc)).toEqual(comparable(original.doc));
    expect(doc.profile.username).toBe('bob_trip');
    expect(await statusOf(bob, CLEARED_SHOW)).toBeNull();

    const [before] = await query<{ n: number }>(em(), { text: 'select count(*)::int as n from change_log where user_id = $1', params: [bob.userId] });
    const second = await importDocument(bob, original.text);
    expect(second).toMatchObject({ status: 'done', imported: 0, unmatched: 0, invalid: 0, alreadyThere: first.imported + first.alreadyThere });
    const [after] = await query<{ n: number }>(em(), { text: 'select count(*)::int as n from change_log where user_id = $1', params: [bob.userId] });
    expect(after!.n).toBe(before!.n);
    expect(comparable(exportDocument.parse((await exportOf(app, bob.token)).body))).toEqual(comparable(original.doc));
  });
});
