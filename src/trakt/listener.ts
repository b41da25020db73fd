// TRAKT_API_PORT: the Trakt-compatible facade at the root of a listener of its own, for a reverse proxy
// that presents it as a whole host (`https://trakt-api.example.org/users/settings`), the way Trakt's
// clients expect their `api.trakt.tv`: many of them resolve paths against the host, so a base URL with
// a path (`{BASE_URL}/trakt`) loses its `/trakt`. Every request on this listener is handed to the SAME
// application as the main port's (the pipeline: request id, bearer authentication, rate limits, body
// limits, then the facade) with `/trakt` put in front of its path. So nothing but the facade is
// reachable here: `/api/platform/v1/me` on this port is `/trakt/api/platform/v1/me`, which the facade
// answers 404; and a dot segment (`/../api/...`) is refused by the pipeline's path check, whose rules
// the prefix does not change.
import type http from 'node:http';
import { TRAKT_BASE } from '../rest/envelope.ts';

/**
 * The request target as the main port's application sees it: `/trakt` and the path (query kept). An
 * absolute-form target (`GET http://host/path`, which proxies may send) is reduced to its path first;
 * anything else (`OPTIONS *`) becomes a path under `/trakt` that no route takes.
 */
export function traktTarget(target: string): string {
  if (target.startsWith('/')) return `${TRAKT_BASE}${target}`;
  try {
    const url = new URL(target);
    if (url.protocol === 'http:' || url.protocol === 'https:') return `${TRAKT_BASE}${url.pathname}${url.search}`;
  } catch {
    // Not a URL: falls through to a path no route takes.
  }
  return `${TRAKT_BASE}/${encodeURIComponent(target)}`;
}

/**
 * The request listener of TRAKT_API_PORT's server: the facade's paths at the root. `app` is read at
 * each request: it is the main port's switch (503 while starting, then the application: server.ts).
 */
export function traktRootListener(app: () => http.RequestListener): http.RequestListener {
  return (req, res) => {
    req.url = traktTarget(req.url ?? '/');
    app()(req, res);
  };
}
