// Embedded mode: one PGlite (PostgreSQL compiled to WASM) in DATA_DIR, served over Unix sockets in that
// directory with the PostgreSQL wire protocol. The owner process (the server, or a CLI command when no
// server runs) reaches it through an inner socket with the ordinary `pg` driver, so every mode runs the
// same SQL through the same driver. Other processes use the public socket, whose door (embedded-guard.ts)
// admits only this project's CLI while the database is in use: PGlite has one session for all
// connections, and psql or pg_dump would change it under the service. `admin db:serve` opens the door
// to every client when nothing else uses the database. Only one process may own the PGlite directory.
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';
import { guardedDoor } from './embedded-guard.ts';
import { readTemplate } from './embedded-template.ts';
import { START_EXIT, StartFailure } from './start-failure.ts';

/** Sockets are named the way libpq expects: `<dir>/.s.PGSQL.<port>`. The public one: */
export const EMBEDDED_PORT = 5432;
/** PostgreSQL's shared buffers in the embedded database (see openEmbedded). */
export const EMBEDDED_SHARED_BUFFERS = '32MB';
/** The owner's own connections, behind no door (the directory is the owner's, mode 0700). */
const INNER_PORT = 5431;

export type EmbeddedDatabase = {
  /** Directory holding the socket: the `host` for pg. */
  socketDir: string;
  port: number;
  /** True when this process owns the PGlite instance (false: another process serves it). */
  owner: boolean;
  /** Admits every client at the public socket (`admin db:serve`); only for the owner. */
  openToAll(): void;
  stats(): { activeConnections: number; queuedQueries: number } | undefined;
  close(): Promise<void>;
};

function socketPath(dataDir: string, port = EMBEDDED_PORT) {
  return path.join(dataDir, `.s.PGSQL.${port}`);
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

/**
 * `template`: the initialised cluster a new database starts from (default: the install's, if any; null:
 * none, initdb runs).
 */
export async function openEmbedded(dataDir: string, opts: { requireOwnership?: boolean; template?: Blob | null } = {}): Promise<EmbeddedDatabase> {
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const file = socketPath(dataDir);
  if (file.length > 100) {
    throw new StartFailure(`invalid configuration: DATA_DIR is too long for a Unix socket (${file.length} > 100 characters with the socket's name): ${dataDir}`, START_EXIT.configuration);
  }
  if (fs.existsSync(file)) {
    if (await socketAnswers(file)) {
      if (opts.requireOwnership) {
        throw new StartFailure(`the embedded database in DATA_DIR (${dataDir}) is already served by another process (socket ${file}): stop that server, or choose another DATA_DIR`, START_EXIT.cannotClaim);
      }
      const notOwner = () => {
        throw new Error('only the process that owns the embedded database can open it to other clients');
      };
      return { socketDir: dataDir, port: EMBEDDED_PORT, owner: false, openToAll: notOwner, stats: () => undefined, close: async () => {} };
    }
    fs.rmSync(file, { force: true });
  }
  const inner = socketPath(dataDir, INNER_PORT);
  fs.rmSync(inner, { force: true });
  const pgdata = path.join(dataDir, 'pgdata');
  // A new database starts from the install's initialised cluster when there is one (embedded-template.ts).
  const fresh = !fs.existsSync(path.join(pgdata, 'PG_VERSION'));
  const template = !fresh || opts.template === null ? undefined : (opts.template ?? readTemplate());
  const db = await PGlite.create({
    dataDir: pgdata,
    extensions: { pg_trgm },
    ...(template ? { loadDataDir: template } : {}),
    // shared_buffers 32 MB instead of PostgreSQL's 128 MB: PGlite's memory is WebAssembly memory, which
    // grows and never shrinks, and the data files are the process's own files, cached by the OS anyway.
    // It made the resident size smaller with catalog throughput unchanged (figures: docs/performance.md,
    // 'Embedded shared_buffers').
    startParams: [...PGlite.defaultStartParams, '-c', `shared_buffers=${EMBEDDED_SHARED_BUFFERS}`],
  });
  // Connections are cheap here: the server queues queries and keeps a transaction on its own connection.
  const server = new PGLiteSocketServer({ db, path: inner, maxConnections: 64 });
  await server.start();
  fs.chmodSync(inner, 0o600);
  const door = guardedDoor(file, inner);
  await new Promise<void>((resolve, reject) => {
    door.server.once('error', reject);
    door.server.listen(file, () => resolve());
  });
  fs.chmodSync(file, 0o600);
  return {
    socketDir: dataDir,
    port: INNER_PORT,
    owner: true,
    openToAll: door.openToAll,
    stats: () => server.getStats(),
    close: async () => {
      await door.close();
      // The socket server's stop() detaches its connections without waiting for them: a detaching
      // connection may still roll back its transaction, or a query may still be running. Closing PGlite
      // under them throws inside PGlite, outside any caller (the process would exit with an error), so
      // its last exclusive run is awaited first.
      await server.stop();
      // A connection whose socket closed just before stop() is detached on a later turn (the socket
      // server defers close handling with setImmediate) and then asks PGlite whether a transaction is
      // open: after close() that call throws inside PGlite. One turn of the loop lets those run first.
      await new Promise((resolve) => setImmediate(resolve));
      await db.runExclusive(async () => {});
      await db.close();
      fs.rmSync(file, { force: true });
      fs.rmSync(inner, { force: true });
    },
  };
}
