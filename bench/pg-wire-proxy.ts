// A TCP proxy between the service and PostgreSQL that reads the wire protocol as it passes: it counts
// the statements (Execute, simple Query) and round trips (Sync, simple Query) the service sends, times
// each statement on the server, and, while asked to, captures the statements in order with their
// parameters (what the write-cost bench replays through bare `pg` as its baseline). Bytes are forwarded
// unchanged as they come; the parsing only looks. No TLS: the service must connect without it.
import net from 'node:net';

/** One statement as the service sent it: its prepared name ('' unnamed), text and parameters (text, or bytes when sent binary). */
export type CapturedStatement = { name: string; text: string; params: Array<string | Buffer | null> };

/** Server time of a statement text over the run: executions and total ms (from its Execute or Query to its completion). */
export type StatementTime = { count: number; ms: number };

// Startup-phase request codes (no type byte): SSL and GSS encryption requests, answered by one byte.
const SSL_REQUEST = 80877103;
const GSSENC_REQUEST = 80877104;

/** Reads length-prefixed messages out of a stream's chunks, keeping a partial one for the next chunk. */
class MessageReader {
  private pending: Buffer = Buffer.alloc(0);
  private typed = false;

  startTyped(): void {
    this.typed = true;
  }

  /** Calls `each(type, body)` for every whole message; type 0 for an untyped startup-phase message. */
  feed(chunk: Buffer, each: (type: number, body: Buffer) => void): void {
    let buf = this.pending.length ? Buffer.concat([this.pending, chunk]) : chunk;
    let at = 0;
    for (;;) {
      const head = this.typed ? 5 : 4;
      if (buf.length - at < head) break;
      const len = buf.readInt32BE(at + (this.typed ? 1 : 0));
      const total = len + (this.typed ? 1 : 0);
      if (buf.length - at < total) break;
      const type = this.typed ? buf[at]! : 0;
      const body = buf.subarray(at + head, at + total);
      at += total;
      if (!this.typed) {
        const code = body.readInt32BE(0);
        // After the startup message proper, every message has a type byte; the encryption requests come before it.
        if (code !== SSL_REQUEST && code !== GSSENC_REQUEST) this.typed = true;
      }
      each(type, body);
    }
    buf = buf.subarray(at);
    // Copied: the chunk's memory is not ours to keep.
    this.pending = buf.length ? Buffer.from(buf) : Buffer.alloc(0);
  }
}

function cstring(b: Buffer, at: number): [string, number] {
  const end = b.indexOf(0, at);
  return [b.toString('utf8', at, end), end + 1];
}

type Pending = { text: string; at: number; simple: boolean };

export class PgWireProxy {
  statements = 0;
  roundTrips = 0;
  /** Set to an array to capture every statement sent from now on (all connections); undefined: not capturing. */
  capture: CapturedStatement[] | undefined;
  readonly times = new Map<string, StatementTime>();
  private readonly upstreams = new Set<net.Socket>();

  private readonly server: net.Server;
  readonly port: number;

  private constructor(server: net.Server, port: number) {
    this.server = server;
    this.port = port;
  }

  /** Listens on 127.0.0.1 (a free port) and forwards each connection to `target`. */
  static async start(target: { host: string; port: number }): Promise<PgWireProxy> {
    const server = net.createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const proxy = new PgWireProxy(server, (server.address() as net.AddressInfo).port);
    server.on('connection', (client: net.Socket) => proxy.connect(client, target));
    return proxy;
  }

  /** The local ports of the connections to PostgreSQL now open (pg_stat_activity's client_port of their backends). */
  upstreamPorts(): number[] {
    return [...this.upstreams].map((s) => s.localPort).filter((p): p is number => p !== undefined);
  }

  close(): Promise<void> {
    for (const s of this.upstreams) s.destroy();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  private connect(client: net.Socket, target: { host: string; port: number }): void {
    const upstream = net.connect(target);
    client.setNoDelay(true);
    upstream.setNoDelay(true);
    this.upstreams.add(upstream);
    // Per connection: prepared statements by name, the statement each portal was bound to, statements awaiting completion.
    const named = new Map<string, string>();
    const portals = new Map<string, { name: string; params: CapturedStatement['params'] }>();
    const pending: Pending[] = [];
    let lastDone = 0;
    const front = new MessageReader();
    const back = new MessageReader();
    // The backend's messages are typed from its first (no encryption is asked for).
    back.startTyped();
    const done = (p: Pending) => {
      const now = performance.now();
      // Pipelined statements queue on the server: each one's time starts when the one before it ended.
      const ms = now - Math.max(p.at, lastDone);
      lastDone = now;
      const t = this.times.get(p.text) ?? { count: 0, ms: 0 };
      t.count += 1;
      t.ms += ms;
      this.times.set(p.text, t);
    };
    client.on('data', (chunk: Buffer) => {
      upstream.write(chunk);
      front.feed(chunk, (type, body) => {
        switch (type) {
          case 0x50: {
            // Parse: statement name, text.
            const [name, at] = cstring(body, 0);
            named.set(name, cstring(body, at)[0]);
            break;
          }
          case 0x42: {
            // Bind: portal, statement, parameter format codes, parameters.
            const [portal, a1] = cstring(body, 0);
            const [name, a2] = cstring(body, a1);
            let at = a2;
            const nFormats = body.readInt16BE(at);
            const formats: number[] = [];
            for (let i = 0; i < nFormats; i++) formats.push(body.readInt16BE(at + 2 + i * 2));
            at += 2 + nFormats * 2;
            const nParams = body.readInt16BE(at);
            at += 2;
            const params: CapturedStatement['params'] = [];
            for (let i = 0; i < nParams; i++) {
              const len = body.readInt32BE(at);
              at += 4;
              if (len < 0) {
                params.push(null);
                continue;
              }
              const binary = (nFormats === 1 ? formats[0] : formats[i]) === 1;
              params.push(binary ? Buffer.from(body.subarray(at, at + len)) : body.toString('utf8', at, at + len));
              at += len;
            }
            portals.set(portal, { name, params });
            break;
          }
          case 0x45: {
            // Execute: a statement.
            const bound = portals.get(cstring(body, 0)[0]);
            const text = named.get(bound?.name ?? '') ?? '';
            this.statements += 1;
            pending.push({ text, at: performance.now(), simple: false });
            this.capture?.push({ name: bound?.name ?? '', text, params: bound?.params ?? [] });
            break;
          }
          case 0x53:
            this.roundTrips += 1;
            break;
          case 0x51: {
            const text = cstring(body, 0)[0];
            this.statements += 1;
            this.roundTrips += 1;
            pending.push({ text, at: performance.now(), simple: true });
            this.capture?.push({ name: '', text, params: [] });
            break;
          }
        }
      });
    });
    upstream.on('data', (chunk: Buffer) => {
      client.write(chunk);
      back.feed(chunk, (type) => {
        // CommandComplete, EmptyQueryResponse, PortalSuspended: an Execute's end.
        if ((type === 0x43 || type === 0x49 || type === 0x73) && pending[0] && !pending[0].simple) done(pending.shift()!);
        else if (type === 0x45 && pending[0] && !pending[0].simple) pending.shift();
        else if (type === 0x5a) {
          // ReadyForQuery: a simple Query's end; Executes still pending were skipped after an error.
          while (pending[0] && !pending[0].simple) pending.shift();
          if (pending[0]?.simple) done(pending.shift()!);
        }
      });
    });
    const end = () => {
      client.destroy();
      upstream.destroy();
      this.upstreams.delete(upstream);
    };
    client.on('error', end);
    upstream.on('error', end);
    client.on('close', end);
    upstream.on('close', end);
  }
}
