// A webhook receiver for tests: a node:http server on 127.0.0.1 that records every request (headers, raw
// body, what it answered) and answers with the status the test chooses, per request, or not at all
// ('hang': a receiver that reads the message and never answers; `answered` is then 0).
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export type Received = { path: string; headers: http.IncomingHttpHeaders; body: string; answered: number };

type Answer = number | 'hang';

export type Receiver = {
  url: string;
  received: Received[];
  /** The status for each request from now on (given what came). */
  answer(status: Answer | ((r: Omit<Received, 'answered'>) => Answer)): void;
  close(): Promise<void>;
};

export async function startReceiver(path = '/hooks'): Promise<Receiver> {
  let decide: (r: Omit<Received, 'answered'>) => Answer = () => 200;
  const received: Received[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const r = { path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
      const answered = decide(r);
      received.push({ ...r, answered: answered === 'hang' ? 0 : answered });
      if (answered !== 'hang') res.writeHead(answered, { 'content-type': 'text/plain' }).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}${path}`,
    received,
    answer(status) {
      decide = typeof status === 'function' ? status : () => status;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
