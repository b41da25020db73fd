// Whether this instance can write, for readiness (/readyz) and the metrics. Two signals:
//
// - Embedded mode: the free space of the data directory's filesystem, read at each check. Below
//   DATA_DIR_MIN_FREE_MB the instance is not ready. Measured on PGlite with the filesystem full: inserts
//   fail with 53100 ("could not extend file") while in-place updates still succeed, and once the WAL
//   needs a new segment it cannot create, the embedded database stops answering anything, even after
//   space is freed, until the process restarts. So the threshold must turn readiness before the last
//   WAL segment's worth of space goes.
// - Both modes: a statement that failed because the database cannot write (the SQLSTATEs below), seen by
//   the pool's client class (reportingErrors). Such a failure keeps the instance not ready for
//   FAILURE_HOLD_MS. There is no probe write: a small one can succeed while real writes fail (the
//   in-place update above), and a success proves nothing about the next insert. An instance taken out
//   of the load balancer receives no writes, so the hold simply runs out and it is ready again; if the
//   cause remains, the next real write that fails takes it out again.
import fs from 'node:fs';
import type pg from 'pg';
import type { Logger } from '../log.ts';

/** SQLSTATEs that mean the database cannot write until someone acts, by their PostgreSQL names. */
const CANNOT_WRITE: Record<string, string> = {
  '53100': 'disk_full',
  '58030': 'io_error',
  // A standby, or a primary set read-only (default_transaction_read_only; some hosts do it on a full disk).
  '25006': 'read_only_sql_transaction',
};

/** How long one cannot-write failure keeps the instance not ready. */
export const FAILURE_HOLD_MS = 30_000;

/** The PostgreSQL condition name of an error that means the database cannot write, else undefined. */
function cannotWriteCondition(err: unknown): { sqlstate: string; condition: string } | undefined {
  const sqlstate = (err as { code?: unknown } | null)?.code;
  if (typeof sqlstate !== 'string') return undefined;
  const condition = CANNOT_WRITE[sqlstate];
  return condition ? { sqlstate, condition } : undefined;
}

export type WriteCheck = { ok: true } | { ok: false; reasons: ('low_disk_space' | 'write_failed')[]; message: string };

export class WriteHealth {
  readonly #dataDir: string | undefined;
  readonly #minFreeBytes: number;
  readonly #log: Logger | undefined;
  readonly #onCannotWrite: ((sqlstate: string) => void) | undefined;
  #lastFailure: { at: number; sqlstate: string; condition: string } | undefined;

  /**
   * `dataDir`: the embedded database's directory, whose free space is checked (services mode: none).
   * `onCannotWrite`: told of each cannot-write failure (the server counts them in its metrics).
   */
  constructor(opts: { dataDir: string | undefined; minFreeBytes: number; log?: Logger | undefined; onCannotWrite?: ((sqlstate: string) => void) | undefined }) {
    this.#dataDir = opts.dataDir;
    this.#minFreeBytes = opts.minFreeBytes;
    this.#log = opts.log;
    this.#onCannotWrite = opts.onCannotWrite;
  }

  /** Every failed statement passes here (reportingErrors); only cannot-write failures count. */
  noteError(err: unknown): void {
    const found = cannotWriteCondition(err);
    if (!found) return;
    this.#onCannotWrite?.(found.sqlstate);
    if (!this.#failing(Date.now())) {
      this.#log?.warn({ sqlstate: found.sqlstate, condition: found.condition, hold_ms: FAILURE_HOLD_MS }, `the database cannot write: /readyz answers 503 until no write has failed for ${FAILURE_HOLD_MS / 1000} s`);
    }
    this.#lastFailure = { at: Date.now(), ...found };
  }

  #failing(now: number): boolean {
    return this.#lastFailure !== undefined && now - this.#lastFailure.at < FAILURE_HOLD_MS;
  }

  /** Free bytes on the data directory's filesystem (embedded mode), else undefined. */
  async freeBytes(): Promise<number | undefined> {
    if (!this.#dataDir) return undefined;
    const s = await fs.promises.statfs(this.#dataDir);
    return s.bavail * s.bsize;
  }

  async check(): Promise<WriteCheck> {
    const reasons: ('low_disk_space' | 'write_failed')[] = [];
    const sentences: string[] = [];
    const free = this.#minFreeBytes > 0 ? await this.freeBytes() : undefined;
    if (free !== undefined && free < this.#minFreeBytes) {
      reasons.push('low_disk_space');
      sentences.push(`The data directory's filesystem has less than DATA_DIR_MIN_FREE_MB (${this.#minFreeBytes / 1024 / 1024} MiB) free.`);
    }
    const now = Date.now();
    const last = this.#lastFailure;
    if (last && this.#failing(now)) {
      reasons.push('write_failed');
      sentences.push(
        `A write failed ${Math.round((now - last.at) / 1000)} s ago because the database cannot write (SQLSTATE ${last.sqlstate} ${last.condition}); ready again ${FAILURE_HOLD_MS / 1000} s after the last such failure.`,
      );
    }
    return reasons.length ? { ok: false, reasons, message: sentences.join(' ') } : { ok: true };
  }
}

type Query = (...args: unknown[]) => unknown;

/**
 * The pool's client class (pg.Pool's `Client` option) with every failed statement reported to
 * `onError`: COMMITs and the statements of every caller go through it, whatever layer built them.
 */
export function reportingErrors(Base: typeof pg.Client, onError: (err: unknown) => void): typeof pg.Client {
  return class extends Base {
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    override query(...args: any[]): any {
      const last = args.length - 1;
      const callback = args[last] as unknown;
      if (typeof callback === 'function') {
        args[last] = (err: unknown, result: unknown) => {
          if (err) onError(err);
          (callback as (e: unknown, r: unknown) => void)(err, result);
        };
        return (super.query as Query)(...args);
      }
      const result = (super.query as Query)(...args);
      // The caller handles the rejection; this side branch only looks at it.
      if (result instanceof Promise) result.catch(onError);
      return result;
    }
  };
}
