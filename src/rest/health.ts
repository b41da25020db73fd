// Liveness (/healthz: the process answers) and readiness (/readyz: the database answers).
import type { Router } from 'express';
import { strictRouter } from './routing.ts';
import type { MikroORM } from '@mikro-orm/postgresql';

export function health(orm: MikroORM): Router {
  const r = strictRouter();
  r.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  r.get('/readyz', async (_req, res) => {
    try {
      await orm.em.fork().execute('select 1');
      res.json({ status: 'ready', database: 'ok' });
    } catch {
      res.status(503).json({ status: 'unavailable', database: 'unreachable' });
    }
  });
  return r;
}
