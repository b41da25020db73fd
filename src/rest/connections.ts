// The connection cap (MAX_CONNECTIONS). Every connection holds a file descriptor, and a flood of them
// (slow clients, a botnet) would otherwise run the process out of descriptors, after which nothing
// works: not the database's sockets, not its files, not new requests. Node's server.maxConnections
// closes a connection over the cap as soon as it is accepted, before a byte is read, and emits 'drop';
// the connections already open (event streams, keep-alive) are untouched.
import fs from 'node:fs';
import type http from 'node:http';
import type { Logger } from '../core/log.ts';
import { httpConnectionsRefused, watchConnections } from '../core/metrics/registry.ts';

/** At most one warning this often while connections are refused (each carries the count since the last). */
const WARN_EVERY_MS = 60_000;
/**
 * Descriptors the process needs besides client connections: database and Redis sockets, the embedded
 * database's files, the log.
 */
const DESCRIPTOR_RESERVE = 1_024;

/** The soft limit on open files (Linux; undefined elsewhere or when unlimited). */
function openFileLimit(): number | undefined {
  try {
    const line = /^Max open files\s+(\d+)/m.exec(fs.readFileSync('/proc/self/limits', 'utf8'));
    return line ? Number(line[1]) : undefined;
  } catch {
    return undefined;
  }
}

/** Caps the server's connections; returns the function that stops reporting them in http_connections_open. */
export function capConnections(server: http.Server, max: number, log: Logger): () => void {
  server.maxConnections = max;
  const limit = openFileLimit();
  if (limit !== undefined && max + DESCRIPTOR_RESERVE > limit) {
    log.warn({ max_connections: max, open_file_limit: limit }, 'MAX_CONNECTIONS leaves fewer than 1024 of the open-file limit for the database and files: lower it or raise the limit (ulimit -n)');
  }
  let lastWarning = 0;
  let refused = 0;
  server.on('drop', () => {
    httpConnectionsRefused.inc();
    refused++;
    const now = Date.now();
    if (now - lastWarning < WARN_EVERY_MS) return;
    log.warn({ max_connections: max, refused }, 'connection cap reached: new connections are closed at once');
    lastWarning = now;
    refused = 0;
  });
  return watchConnections(() => new Promise((resolve, reject) => server.getConnections((err, n) => (err ? reject(err) : resolve(n)))));
}
