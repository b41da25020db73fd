// One attempt to post one message: the destination checked (destination.ts) and connected to as
// checked, a deadline on the whole exchange, no redirect followed. The answer is reduced to what the
// delivery log keeps: the status, or why there was none.
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { DestinationRefused, resolveDestination, type Destination, type Resolver } from './destination.ts';

export type Attempt = {
  /** The receiver's status; null when it gave none. */
  status: number | null;
  /** Why the attempt failed (null on a 2xx): a short text, never a stack. */
  error: string | null;
  durationMs: number;
};

export type SendOptions = { allowPrivate: boolean; timeoutMs: number; resolve?: Resolver | undefined };

// Connections are kept between messages: a subscription's messages go one after another to one host.
// Idle sockets do not hold the process open (Node unrefs them).
const agents = {
  'http:': new http.Agent({ keepAlive: true, maxSockets: 16 }),
  'https:': new https.Agent({ keepAlive: true, maxSockets: 16 }),
};

/** A lookup that answers the checked address, whatever the name resolves to by now. */
function pinned(to: Destination): LookupFunction {
  return (_hostname, options, callback) => {
    if (options.all) (callback as unknown as (err: null, addresses: { address: string; family: number }[]) => void)(null, [{ address: to.address, family: to.family }]);
    else callback(null, to.address, to.family);
  };
}

/** The error texts a connection failure is reduced to. */
function describe(err: unknown, timeoutMs: number): string {
  if (err instanceof DestinationRefused) return `destination refused: ${err.message}`;
  const e = err as NodeJS.ErrnoException;
  if (e?.name === 'TimeoutError' || e?.name === 'AbortError') return `no answer within ${timeoutMs / 1000} s`;
  if (e?.code) return `connection failed (${e.code})`;
  return 'connection failed';
}

/** Posts `body` with `headers` to `url`; resolves with the outcome, never rejects. */
export async function postMessage(url: URL, body: string, headers: Record<string, string>, opts: SendOptions): Promise<Attempt> {
  const t0 = performance.now();
  const done = (status: number | null, error: string | null): Attempt => ({ status, error, durationMs: Math.round(performance.now() - t0) });
  try {
    const destination = await resolveDestination(url, opts);
    const status = await new Promise<number>((resolve, reject) => {
      const req = (url.protocol === 'https:' ? https : http).request(
        url,
        {
          method: 'POST',
          agent: agents[url.protocol as keyof typeof agents],
          headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), 'user-agent': 'media-tracking-webhooks/1', ...headers },
          signal: AbortSignal.timeout(opts.timeoutMs),
          ...(destination ? { lookup: pinned(destination) } : {}),
        },
        (res) => {
          // The body says nothing the service keeps; it is read to its end (within the deadline) so the
          // connection can carry the next message.
          res.resume();
          res.once('end', () => resolve(res.statusCode ?? 0));
          res.once('error', reject);
        },
      );
      req.once('error', reject);
      req.end(body);
    });
    if (status >= 200 && status < 300) return done(status, null);
    if (status >= 300 && status < 400) return done(status, `HTTP ${status}: redirects are not followed`);
    return done(status, `HTTP ${status}`);
  } catch (err) {
    return done(null, describe(err, opts.timeoutMs));
  }
}
