// The service as src/main.ts runs it, built with a test's hook (child-server.ts spawns it when a test
// asks for one). `--sync-hold-ms N`: each bulk sync write holds its transaction open N ms after its
// writes, before the commit, and logs "sync batch held open" (with its request's id) as the hold starts.
import { parseArgs } from 'node:util';
import { serve } from '../../src/serve.ts';
import { holdBeforeCommit } from './sync-hold.ts';

const { values } = parseArgs({ options: { 'sync-hold-ms': { type: 'string' } } });
const holdMs = Number(values['sync-hold-ms'] ?? 0);

await serve(holdMs > 0 ? { beforeSyncCommit: (tx, log) => holdBeforeCommit(holdMs, () => log.warn({ hold_ms: holdMs }, 'sync batch held open'))(tx) } : {});
