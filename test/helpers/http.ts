// Raw HTTP for tests that need exact control over bytes and timing (body limits, slow bodies).
import http from 'node:http';

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
