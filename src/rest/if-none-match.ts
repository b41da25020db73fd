// If-None-Match as RFC 9110 (13.1.2) has an origin server evaluate it: the weak comparison of entity
// tags (W/ ignored), `*` matching any current representation. Express's `req.fresh` (the `fresh`
// package) is a cache's rule instead: it reports stale whenever the request says `Cache-Control:
// no-cache`, which fetch() adds to every request carrying If-None-Match, so a client built on it would
// never get its 304.

/** Whether `header` (the request's If-None-Match) names the representation tagged `etag`. */
export function matchesIfNoneMatch(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  if (header.trim() === '*') return true;
  const opaque = (tag: string) => tag.trim().replace(/^W\//, '');
  return header.split(',').some((tag) => opaque(tag) === opaque(etag));
}
