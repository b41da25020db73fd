// A tiny load balancer (node:http) presenting one origin in front of several instances of the app (each
// started with startChild of test/helpers/child-server.ts), as BASE_URL and the OAuth issuer name it:
// round-robin by default, or pinned to one instance so a test decides where each step of a flow lands.
import http from 'node:http';
import type net from 'node:net';
import { freePort } from './app.ts';

export type LoadBalancer = {
  url: string;
  port: number;
  /** Where requests go: instance origins, set once the instances run (the proxy starts first, for BASE_URL). */
  targets: Array<{ name: string; url: string }>;
  /** Sends every request to the named target from now on; null goes back to round-robin. */
  pin(name: string | null): void;
  /** The target name of each request forwarded, in order. */
  served: string[];
  close(): Promise<void>;
};

/**
 * A round-robin HTTP proxy on a free port. It forwards the request as it came (Host included, as a load
 * balancer does, so the instances see the public origin) and streams the answer back (SSE included),
 * adding an X-Served-By header naming the instance that answered.
 */
export async function startLoadBalancer(): Promise<LoadBalancer> {
  const port = await freePort();
  let next = 0;
  let pinned: string | null = null;
  const sockets = new Set<net.Socket>();
  const lb: LoadBalancer = {
    url: `http://127.0.0.1:${port}`,
    port,
    targets: [],
    served: [],
    pin(name) {
      if (name !== null && !lb.targets.some((t) => t.name === name)) throw new Error(`no target ${name}`);
      pinned = name;
    },
    close: () =>
      new Promise((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
  const server = http.createServer((req, res) => {
    if (lb.targets.length === 0) {
      res.writeHead(503).end('no targets');
      return;
    }
    const target = pinned ? lb.targets.find((t) => t.name === pinned)! : lb.targets[next++ % lb.targets.length]!;
    lb.served.push(target.name);
    const to = new URL(target.url);
    const forwardedFor = [req.headers['x-forwarded-for'], req.socket.remoteAddress].filter(Boolean).join(', ');
    const upstream = http.request(
      { host: to.hostname, port: to.port, method: req.method, path: req.url, headers: { ...req.headers, 'x-forwarded-for': forwardedFor } },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, { ...answer.headers, 'x-served-by': target.name });
        answer.pipe(res);
      },
    );
    upstream.on('error', () => {
      if (!res.headersSent) res.writeHead(502);
      res.end();
    });
    req.pipe(upstream);
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.once('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return lb;
}
