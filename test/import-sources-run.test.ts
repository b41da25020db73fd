// Each source's fixture export imported end to end, as a person does it: uploaded on /account/import,
// read by the source's real reader, run by the `imports` job through bulk sync and the library and list
// writes. Per source: what was imported, matched and left unmatched; a second import of the same file
// imports nothing and adds nothing to the change feed; the change feed holds a record of each kind.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { changesOf } from './helpers/change-log.ts';
import { fixtureZip } from './helpers/import-fixtures.ts';
import { seedImportCatalog } from './helpers/import-fixtures.ts';
import { accountSession, finished, upload, type RunJson } from './helpers/imports.ts';

let app: TestApp;

beforeAll(async () => {
  app = await startTestApp({ IMPORT_INTERVAL_MS: '500' });
  await seedImportCatalog(app);
});
afterAll(() => app?.stop());

async function importFile(username: string, source: string, content: Uint8Array, name: string) {
  const session = await accountSession(app, username);
  const runOnce = async (): Promise<RunJson> => {
    const res = await upload(app, session, { content, name }, { source });
    expect(res.status).toBe(303);
    const id = /^\/account\/import\/(\d+)$/.exec(res.headers.get('location')!)![1]!;
    return finished(app, session, id);
  };
  const first = await runOnce();
  const changes = await changesOf(app, session.userId);
  const second = await runOnce();
  const changesAfter = await changesOf(app, session.userId);
  return { first, second, changes, changesAfter };
}

// What each fixture holds (test/fixtures/import, docs/import-formats.md): `alreadyThere` on a first
// import is a record the same file wrote before it (Simkl repeats an anime's watches as absolute numbers).
const SOURCES = [
  {
    source: 'trakt', file: 'trakt-export.zip',
    counts: { matched: 20, imported: 20, alreadyThere: 0, unmatched: 2, invalid: 0 },
    resources: ['favourites', 'history', 'list_items', 'lists', 'ratings', 'show_status'],
  },
  {
    source: 'letterboxd', file: 'letterboxd-export.zip',
    counts: { matched: 12, imported: 12, alreadyThere: 0, unmatched: 4, invalid: 0 },
    resources: ['history', 'list_items', 'lists', 'ratings'],
  },
  {
    source: 'simkl', file: 'simkl-backup.zip',
    counts: { matched: 23, imported: 21, alreadyThere: 2, unmatched: 2, invalid: 0 },
    resources: ['history', 'list_items', 'lists', 'ratings', 'show_status'],
  },
] as const;

describe.each(SOURCES)('importing a $source export', ({ source, file, counts, resources }) => {
  it('imports what matches, counts what does not, changes nothing the second time, and feeds every kind', async () => {
    const { first, second, changes, changesAfter } = await importFile(`imp_${source}`, source, fixtureZip(source), file);
    expect(first).toMatchObject({ status: 'done', error: null, percent: 100, ...counts });
    expect([...new Set(changes.map((c) => c.resource))].sort()).toEqual(resources);
    expect(second).toMatchObject({ status: 'done', imported: 0, unmatched: first.unmatched, invalid: first.invalid });
    expect(second.alreadyThere).toBe(first.imported + first.alreadyThere);
    expect(changesAfter.length).toBe(changes.length);
  });
});
