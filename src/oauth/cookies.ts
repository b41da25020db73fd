// A cookie of the request, by name. Express parses no cookies itself, and the service's pages read only
// a few cookies of their own, each by name (a consent form's secret, a sign-up handoff, the account session).
import type { Request } from 'express';

export function readCookie(req: Request, name: string): string | undefined {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const i = part.indexOf('=');
    if (i > 0 && part.slice(0, i).trim() === name) {
      try {
        return decodeURIComponent(part.slice(i + 1).trim());
      } catch {
        return undefined; // a malformed cookie is no cookie
      }
    }
  }
  return undefined;
}
