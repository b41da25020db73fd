// The provider builds every URL it hands out (the RFC 8414 metadata's endpoints, `verification_uri`,
// the resume step an interaction returns to) from the request: scheme, host and, for an absolute-form
// request line (`GET http://other.example/...`), the whole target. A forged Host or X-Forwarded-Host
// would then send apps and users elsewhere. So the service stands as the provider's trusted proxy
// (`provider.proxy = true`, provider.ts) and tells it the public origin from BASE_URL on every request;
// nothing the client sent about its origin reaches it.
import type { Request, Response } from 'express';

type Handler = (req: Request, res: Response) => void;

export function atBaseUrl(handler: Handler, baseUrl: string): Handler {
  const base = new URL(baseUrl);
  const proto = base.protocol.slice(0, -1);
  return (req, res) => {
    // The address as Express decided it (TRUST_PROXY): what the provider records as the client's.
    const ip = req.ip ?? req.socket.remoteAddress ?? '';
    if (!req.url.startsWith('/')) {
      const target = URL.parse(req.url);
      req.url = target ? `${target.pathname}${target.search}` : '/';
      // The provider derives its mount path from originalUrl: it must name no other origin either.
      req.originalUrl = req.url;
    }
    req.headers.host = base.host;
    req.headers['x-forwarded-host'] = base.host;
    req.headers['x-forwarded-proto'] = proto;
    req.headers['x-forwarded-for'] = ip;
    handler(req, res);
  };
}
