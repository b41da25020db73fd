// The door of the embedded database's public socket. PGlite runs ONE PostgreSQL session for every
// connection, so a client that changes session state (psql's `SET search_path`, pg_dump's
// `SET TRANSACTION READ ONLY` and `search_path = ''`) would change it under the service's own
// statements. While the service (or a CLI command) owns the database, the door reads each connection's
// startup message and lets through only this project's own clients (application_name OWN_CLIENT: the
// admin CLI, which changes no session state); any other client gets a PostgreSQL error that says how
// to reach the database safely (`admin db:serve`, with the server stopped). `db:serve` opens the door
// to every client, when nothing else uses the database. This guards against mistakes of the machine's
// operator (the socket is owner-only, 0600), not against an attacker on the machine.
import net from 'node:net';

/** The application_name of this project's own clients of the embedded socket. */
export const OWN_CLIENT = 'mts-cli';

const SSL_REQUEST = 80877103;
const GSSENC_REQUEST = 80877104;
/** A startup message larger than this is not one (PostgreSQL's own limit is 10,000 bytes). */
const MAX_STARTUP = 10_000;

const REFUSED_MESSAGE =
  'the embedded database is in use by the service: other clients (psql, pg_dump) would change its session. Stop the server, then run `npm run --silent admin -- db:serve` and connect while it runs';

/** A FATAL ErrorResponse in the wire protocol. */
function errorResponse(code: string, message: string): Buffer {
  const fields = Buffer.concat([
    Buffer.from(`SFATAL\0VFATAL\0C${code}\0M${message}\0`, 'utf8'),
    Buffer.from([0]),
  ]);
  const head = Buffer.alloc(5);
  head.write('E', 0);
  head.writeInt32BE(fields.length + 4, 1);
  return Buffer.concat([head, fields]);
}

/** The parameters of a startup message (key\0value\0 pairs after the length and protocol version). */
function startupParams(message: Buffer): Record<string, string> {
  const parts = message.subarray(8).toString('utf8').split('\0');
  const params: Record<string, string> = {};
  for (let i = 0; i + 1 < parts.length && parts[i]; i += 2) params[parts[i]!] = parts[i + 1]!;
  return params;
}

export type Door = { server: net.Server; openToAll(): void; close(): Promise<void> };

/**
 * Listens on `publicPath` and forwards admitted connections, startup message included, to the socket
 * the PGlite server listens on (`innerPath`).
 */
export function guardedDoor(publicPath: string, innerPath: string): Door {
  let openToAll = false;
  // Every connection through the door, so closing it ends them (net.Server.close waits for them).
  const open = new Set<net.Socket>();
  const server = net.createServer((client) => {
    open.add(client);
    client.on('close', () => open.delete(client));
    let buffered = Buffer.alloc(0);
    const onData = (chunk: Buffer) => {
      buffered = Buffer.concat([buffered, chunk]);
      for (;;) {
        if (buffered.length < 8) return;
        const length = buffered.readInt32BE(0);
        if (length < 8 || length > MAX_STARTUP) return void client.destroy();
        const code = buffered.readInt32BE(4);
        // Encryption requests: answered "no" here (a Unix socket needs none); the startup message follows.
        if (length === 8 && (code === SSL_REQUEST || code === GSSENC_REQUEST)) {
          client.write('N');
          buffered = buffered.subarray(8);
          continue;
        }
        if (buffered.length < length) return;
        client.off('data', onData);
        client.pause(); // until piped: nothing the client sends next may be lost
        admit(client, buffered);
        return;
      }
    };
    client.on('data', onData);
    client.on('error', () => client.destroy());
  });

  const admit = (client: net.Socket, startup: Buffer) => {
    const params = startupParams(startup.subarray(0, startup.readInt32BE(0)));
    if (!openToAll && params.application_name !== OWN_CLIENT) {
      client.end(errorResponse('57P03', REFUSED_MESSAGE));
      return;
    }
    const inner = net.connect(innerPath, () => {
      inner.write(startup);
      client.pipe(inner);
      inner.pipe(client);
    });
    inner.on('error', () => client.destroy());
    client.on('close', () => inner.destroy());
    inner.on('close', () => client.destroy());
  };

  return {
    server,
    openToAll: () => void (openToAll = true),
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const socket of open) socket.destroy();
      }),
  };
}
