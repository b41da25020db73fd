// A webhook receiver on loopback for tests: it keeps every message it is sent (headers, body, when) and
// answers as the test sets it: a status, or no answer at all (a hung receiver) until it is told again.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

export type Received = { headers: http.IncomingHttpHeaders; body: string; type: string; at: number };

export type Receiver = {
  url: string;
  received: Received[];
  /** What it answers from now on: a status, or 'hang' (it reads the message and never answers). */
  answer(with_: number | 'hang'): void;
  /** The messages of a type, in the order they came. */
  ofType(type: string): Received[];
  close(): Promise<void>;
};

export async function startReceiver(): Promise<Receiver> {
  const received: Received[] = [];
  let answer: number | 'hang' = 204;
  const hung = new Set<http.ServerResponse>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      received.push({ headers: req.headers, body, type: (JSON.parse(body) as { type: string }).type, at: Date.now() });
      if (answer === 'hang') hung.add(res);
      else res.writeHead(answer).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
    received,
    answer: (a) => {
      answer = a;
    },
    ofType: (type) => received.filter((r) => r.type === type),
    close: () => {
      for (const res of hung) res.destroy();
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

/** Whether a message's signature verifies under `secret`, as a receiver checks it with the Standard Webhooks library. */
export function signedWith(r: Received, secret: string): boolean {
  const headers = Object.fromEntries(['webhook-id', 'webhook-timestamp', 'webhook-signature'].map((h) => [h, String(r.headers[h])]));
  try {
    new Webhook(secret).verify(r.body, headers);
    return true;
  } catch {
    return false;
  }
}
