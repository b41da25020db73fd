// Cuts an importer's records into batches: at most BATCH_SIZE records of one kind, numbered per kind in
// the order they fill. The same file always makes the same batches with the same numbers, so a batch's
// Idempotency-Key (its file's sha256, kind and number) names the same writes on every import of that
// file, and a resumed run skips the batches it already committed by number.
import { isOwnRecord, type ImportRecord, type ImportTitleRef, type OwnRecord, type SourceRow } from './records.ts';

const BATCH_SIZE = 100;

type Of<K extends ImportRecord['kind']> = Extract<ImportRecord, { kind: K }>;

/** A list's items in batches: each batch names its list (a list of the same name is reused). */
type ListItemEntry = { title: ImportTitleRef; note: string | null; at: SourceRow };

export type Batch =
  | { kind: 'history'; index: number; records: Of<'history'>[] }
  | { kind: 'rating'; index: number; records: Of<'rating'>[] }
  | { kind: 'watchlist'; index: number; records: Of<'watchlist'>[] }
  | { kind: 'show_status'; index: number; records: Of<'show_status'>[] }
  | { kind: 'favourite'; index: number; records: Of<'favourite'>[] }
  | { kind: 'list'; index: number; list: { name: string; description: string | null; at: SourceRow }; items: ListItemEntry[] }
  /** What only this service's own export carries, in the document's order (statuses after history). */
  | { kind: 'own'; index: number; records: OwnRecord[] };

type BatchKind = Batch['kind'];

/** The order the last, partly filled batches are written in at the end of the file. */
const BATCH_KINDS: readonly BatchKind[] = ['history', 'rating', 'watchlist', 'show_status', 'favourite', 'list', 'own'];

/** The batches of a stream of records, each as soon as it is full; the partly filled ones at the end. */
export async function* batchesOf(records: AsyncIterable<ImportRecord>): AsyncGenerator<Batch> {
  const open = new Map<Exclude<BatchKind, 'list'>, ImportRecord[]>();
  const next = new Map<BatchKind, number>();
  const number = (kind: BatchKind) => {
    const n = next.get(kind) ?? 0;
    next.set(kind, n + 1);
    return n;
  };
  const cut = (kind: Exclude<BatchKind, 'list'>, records: ImportRecord[]) => ({ kind, index: number(kind), records }) as Batch;
  for await (const record of records) {
    if (isOwnRecord(record)) {
      // Own-export records apply in the document's order after everything before them: the batches of
      // other kinds still open are cut first (an explicit status must land after the watches).
      for (const kind of BATCH_KINDS) {
        if (kind === 'list' || kind === 'own') continue;
        const pending = open.get(kind);
        if (pending?.length) {
          open.delete(kind);
          yield cut(kind, pending);
        }
      }
    }
    if (record.kind === 'list') {
      // A list's items in batches of their own; an empty list still makes one (the list itself).
      const list = { name: record.name, description: record.description, at: record.at };
      let start = 0;
      do {
        yield { kind: 'list', index: number('list'), list, items: record.items.slice(start, start + BATCH_SIZE) };
        start += BATCH_SIZE;
      } while (start < record.items.length);
      continue;
    }
    const kind = isOwnRecord(record) ? 'own' : record.kind;
    const pending = open.get(kind) ?? [];
    pending.push(record);
    open.set(kind, pending);
    if (pending.length === BATCH_SIZE) {
      open.delete(kind);
      yield cut(kind, pending);
    }
  }
  for (const kind of BATCH_KINDS) {
    if (kind === 'list') continue;
    const pending = open.get(kind);
    if (pending?.length) yield cut(kind, pending);
  }
}
