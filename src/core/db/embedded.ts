// Embedded mode: one PGlite (PostgreSQL compiled to WASM) in DATA_DIR, served over a Unix socket in that
// directory with the PostgreSQL wire protocol. The service, the admin CLI and psql all reach it through
// that socket with the ordinary `pg` driver, so every mode runs the same SQL through the same driver,
// and the CLI works while the server runs. Only one process may own the PGlite directory: the first to
// open it serves the socket; any other process connects to that socket instead.
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';

/** Sockets are named the way libpq expects: `<dir>/.s.PGSQL.<port>`. */
export const EMBEDDED_PORT = 5432;

export type EmbeddedDatabase = {
  /** Directory holding the socket: the `host` for pg. */
  socketDir: string;
  port: number;
  /** True when this process owns the PGlite instance (false: another process serves it). */
  owner: boolean;
  stats(): { activeConnections: number; queuedQueries: number } | undefined;
  close(): Promise<void>;
};

function socketPath(dataDir: string) {
  return path.join(dataDir, `.s.PGSQL.${EMBEDDED_PORT}`);
}

/** Whether a live process answers on the socket (a stale file from a crash does not). */
function socketAnswers(file: string): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.connect(file);
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
  });
}

export async function openEmbedded(dataDir: string, opts: { requireOwnership?: boolean } = {}): Promise<EmbeddedDatabase> {
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const file = socketPath(dataDir);
  if (file.length > 100) {
    throw new Error(`DATA_DIR path is too long for a Unix socket (${file.length} > 100 characters): ${dataDir}`);
  }
  if (fs.existsSync(file)) {
    if (await socketAnswers(file)) {
      if (opts.requireOwnership) {
        throw new Error(`the embedded database in ${dataDir} is already served by another process (socket ${file})`);
      }
      return { socketDir: dataDir, port: EMBEDDED_PORT, owner: false, stats: () => undefined, close: async () => {} };
    }
    fs.rmSync(file, { force: true });
  }
  const db = await PGlite.create({ dataDir: path.join(dataDir, 'pgdata'), extensions: { pg_trgm } });
  // Connections are cheap here: the server queues queries and keeps a transaction on its own connection.
  const server = new PGLiteSocketServer({ db, path: file, maxConnections: 64 });
  await server.start();
  fs.chmodSync(file, 0o600);
  return {
    socketDir: dataDir,
    port: EMBEDDED_PORT,
    owner: true,
    stats: () => server.getStats(),
    close: async () => {
      await server.stop();
      await db.close();
      fs.rmSync(file, { force: true });
    },
  };
}
