// Liveness (/healthz: the process answers) and readiness (/readyz: the database answers, and can write).
// Readiness fails with a reason an operator can read: the database not answering within
// READY_TIMEOUT_MS, or writes failing (core/db/write-health.ts: the embedded data directory short of
// space, or a recent write refused because the database cannot write).
import type { Router } from 'express';
import { strictRouter } from './routing.ts';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { WriteHealth } from '../core/db/write-health.ts';

/** A database that has not answered `select 1` in this long counts as unreachable. */
const READY_TIMEOUT_MS = 5_000;

export function health(orm: MikroORM, writes: WriteHealth): Router {
  // One check at a time: a database that never answers (a hung embedded one) gets one waiting query,
  // not one more for every probe.
  let pending: Promise<boolean> | undefined;
  const databaseAnswers = (): Promise<boolean> => {
    pending ??= orm.em
      .fork()
      .execute('select 1')
      .then(
        () => true,
        () => false,
      )
      .finally(() => (pending = undefined));
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), READY_TIMEOUT_MS)));
    return Promise.race([pending, late]).finally(() => clearTimeout(timer));
  };

  const r = strictRouter();
  r.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  r.get('/readyz', async (_req, res) => {
    if (!(await databaseAnswers())) {
      res.status(503).json({ status: 'unavailable', database: 'unreachable' });
      return;
    }
    const check = await writes.check();
    if (!check.ok) {
      res.status(503).json({ status: 'unavailable', database: 'ok', writes: 'failing', reasons: check.reasons, message: check.message });
      return;
    }
    res.json({ status: 'ready', database: 'ok', writes: 'ok' });
  });
  return r;
}
