// An import run as the account page and its JSON endpoint show it: where it is, its percent (bytes of
// the file the writing pass has read) and its counts.
import type { RunRow } from './repository.ts';

export type RunView = {
  id: number;
  source: string;
  status: 'queued' | 'running' | 'done' | 'failed';
  /** `checking`: reading the whole file first; `writing`: writing its batches; null when not running. */
  phase: 'checking' | 'writing' | null;
  fileName: string;
  fileSize: number;
  percent: number;
  /** imported + alreadyThere */
  matched: number;
  imported: number;
  alreadyThere: number;
  unmatched: number;
  invalid: number;
  /** Records the file holds (known once checked). */
  records: number | null;
  error: string | null;
  createdAt: string;
  finishedAt: string | null;
};

export function presentRun(r: RunRow): RunView {
  const status = r.status === 'receiving' ? 'queued' : r.status;
  // 100 only when done: the last batch is written after the last byte is read.
  const size = Number(r.file_size);
  const percent = status === 'done' ? 100 : r.checked && size > 0 ? Math.min(99, Math.floor((Number(r.bytes_read) / size) * 100)) : 0;
  return {
    id: Number(r.id),
    source: r.source,
    status,
    phase: status === 'running' ? (r.checked ? 'writing' : 'checking') : null,
    fileName: r.file_name,
    fileSize: size,
    percent,
    matched: r.imported + r.already_there,
    imported: r.imported,
    alreadyThere: r.already_there,
    unmatched: r.unmatched,
    invalid: r.invalid,
    records: r.records_total,
    error: r.error,
    createdAt: new Date(r.created_at).toISOString(),
    finishedAt: r.finished_at ? new Date(r.finished_at).toISOString() : null,
  };
}
