// The round trip: a user's export, imported into a fresh account, exports again as the same document
// but for what the document marks as regenerated (when it was made, the account's username and join
// date). The import is driven here as the import run drives it: the records of the `own` importer in
// document order, the bulk kinds (history, ratings) through POST /sync/{resource} in batches of 100
// with an Idempotency-Key made from the file and the batch's first row, the own kinds through
// applyOwnRecords. A second import of the same file changes nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { query } from '../src/core/db/sql.ts';
import { exportDocument, REGENERATED_FIELDS, type ExportDocument } from '../src/core/export/schema.ts';
import { applyOwnRecords, type OwnOutcome } from '../src/core/import/apply-own-kinds.ts';
import { isOwnRecord, type ImportRecord, type OwnRecord } from '../src/core/import/records.ts';
import { ownImporter } from '../src/core/import/sources/own.ts';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { addSpecial, exporter, exportOf, seedLibrary } from './helpers/export-seed.ts';
import { seedCatalog, type Member } from './helpers/seed.ts';
import { bulk } from './helpers/sync-client.ts';

let app: TestApp;
let alice: Member;
let original: { text: string; doc: ExportDocument };
const em = () => app.db.orm.em.fork();

beforeAll(async () => {
  app = await startTestApp();
  await seedCatalog(app, { shows: 3 });
  await addSpecial(app);
  alice = await exporter(app, 'alice_trip');
  await seedLibrary(app, alice);
  const res = await exportOf(app, alice.token);
  original = { text: res.text, doc: exportDocument.parse(res.body) };
}, 120_000);
afterAll(() => app?.stop());

async function* bytes(text: string): AsyncGenerator<Uint8Array> {
  const all = new TextEncoder().encode(text);
  for (let i = 0; i < all.length; i += 4096) yield all.subarray(i, i + 4096);
}

type Counts = { imported: number; unchanged: number; other: number };

/** Imports the document for `m` as the import run does; how many records went in, were there, or neither. */
async function importDocument(m: Member, text: string): Promise<Counts> {
  const counts: Counts = { imported: 0, unchanged: 0, other: 0 };
  let batch: ImportRecord[] = [];
  const flush = async () => {
    if (batch.length === 0) return;
    const [first] = batch;
    if (isOwnRecord(first!)) {
      const outcomes: OwnOutcome[] = await applyOwnRecords(em(), m.userId, batch as OwnRecord[], { clientId: m.clientId });
      for (const o of outcomes) counts[o.status === 'inserted' || o.status === 'updated' ? 'imported' : o.status === 'unchanged' ? 'unchanged' : 'other']++;
    } else {
      const resource = first!.kind === 'history' ? 'history' : 'ratings';
      const items = batch.map((r) => (r as Extract<ImportRecord, { kind: 'history' | 'rating' }>).item);
      const res = await bulk(app, m.token, resource, items, `import:own:${first!.at.file}:${first!.at.row}`);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      const b = res.body as Record<string, number>;
      // The same file's batch again: the stored result is replayed, nothing is written.
      if (res.body.idempotency_replayed === true) {
        counts.unchanged += items.length;
        batch = [];
        return;
      }
      counts.imported += b.inserted! + b.updated!;
      counts.unchanged += b.skipped!;
      counts.other += b.invalid! + b.deferred!;
    }
    batch = [];
  };
  for await (const r of ownImporter(bytes(text))) {
    const sameRun = batch.length > 0 && batch[0]!.kind === r.kind && batch.length < 100;
    if (!sameRun) await flush();
    batch.push(r);
  }
  await flush();
  return counts;
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
    expect(first.other).toBe(0);
    const again = await exportOf(app, bob.token);
    expect(again.status).toBe(200);
    const doc = exportDocument.parse(again.body);
    expect(comparable(doc)).toEqual(comparable(original.doc));
    expect(doc.profile.username).toBe('bob_trip');

    const [before] = await query<{ n: number }>(em(), { text: 'select count(*)::int as n from change_log where user_id = $1', params: [bob.userId] });
    const second = await importDocument(bob, original.text);
    expect(second.imported).toBe(0);
    expect(second.other).toBe(0);
    const [after] = await query<{ n: number }>(em(), { text: 'select count(*)::int as n from change_log where user_id = $1', params: [bob.userId] });
    expect(after!.n).toBe(before!.n);
    expect(comparable(exportDocument.parse((await exportOf(app, bob.token)).body))).toEqual(comparable(original.doc));
  });
});
