// Requests to the service under test: `call`, as a client sends them (fetch, JSON), and `rawRequest`,
// raw HTTP for tests that need exact control over bytes and timing (body limits, slow bodies).
import http from 'node:http';

/** An answer: its status, headers and JSON body. */
export type Answer = { status: number; headers: Headers; body: Record<string, unknown> };

export type CallOptions = {
  method?: string;
  /** Sent as `Authorization: Bearer <token>`. */
  token?: string | null;
  /** JSON-encoded, with content-type application/json; a string is sent as it is (a body the test spells). */
  body?: unknown;
  /** Added last: they override the ones above. */
  headers?: Record<string, string>;
  /** Aborts the request (a failure) after this long: for a request that might never be answered. */
  timeoutMs?: number;
};

/** One request to `base` (a URL, or an app: its `url`) at `path`: the answer with its body as text. */
export async function request(base: string | { url: string }, path: string, opts: CallOptions = {}): Promise<{ status: number; headers: Headers; text: string }> {
  const { method = 'GET', token, body, timeoutMs } = opts;
  const res = await fetch(`${typeof base === 'string' ? base : base.url}${path}`, {
    method,
    headers: {
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...opts.headers,
    },
    ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
    ...(timeoutMs === undefined ? {} : { signal: AbortSignal.timeout(timeoutMs) }),
  });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

/** `request`, its body parsed as JSON ({} when empty). */
export async function call(base: string | { url: string }, path: string, opts: CallOptions = {}): Promise<Answer> {
  const { status, headers, text } = await request(base, path, opts);
  return { status, headers, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
}

export type RawResponse = { status: number; headers: http.IncomingHttpHeaders; body: string; json(): unknown };

export function rawRequest(
  baseUrl: string,
  opts: { method: string; path: string; headers?: Record<string, string | number>; body?: Buffer | string; sendBody?: (req: http.ClientRequest) => void },
): Promise<RawResponse> {
  const url = new URL(opts.path, baseUrl);
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: opts.method, headers: opts.headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body, json: () => JSON.parse(body) });
      });
      res.on('error', reject);
    });
    // The server may close the connection after answering early (413, 408): the answer still counts.
    req.on('error', (err) => {
      if ((err as NodeJS.ErrnoException).code !== 'EPIPE' && (err as NodeJS.ErrnoException).code !== 'ECONNRESET') reject(err);
    });
    if (opts.sendBody) opts.sendBody(req);
    else req.end(opts.body);
  });
}

/** A JSON document of exactly `size` bytes: {"pad":"xxx..."}. */
export function jsonOfSize(size: number): Buffer {
  const overhead = Buffer.byteLength('{"pad":""}');
  return Buffer.from(`{"pad":"${'x'.repeat(size - overhead)}"}`);
}
