// A new client secret reaches its owner once: the POST that makes it redirects to the app's page
// (so a reload never registers or rotates again) and hands the secret over in a cookie that page reads
// and clears in the same response, so a reload no longer shows it. The cookie is encrypted and
// authenticated (AES-256-GCM under a key derived from the provider's cookie key), names the user and
// the app (another account's page never shows it), is sent only to that app's page, and lives 5 minutes
// at most when never read. Nothing is stored on the server, so it works across instances.
import { createCipheriv, createDecipheriv, createHmac, randomBytes } from 'node:crypto';
import type { Request, Response } from 'express';
import { readCookie } from '../../oauth/cookies.ts';

const COOKIE = 'mts_app_secret';
const MAX_AGE = 5 * 60;

const keyOf = (key: string) => createHmac('sha256', key).update('developer-app-secret-reveal').digest();
const pathOf = (clientId: string) => `/account/apps/${encodeURIComponent(clientId)}`;

function setCookie(res: Response, clientId: string, value: string, maxAge: number, secure: boolean) {
  res.append('Set-Cookie', `${COOKIE}=${value}; Path=${pathOf(clientId)}; Max-Age=${maxAge}; HttpOnly; SameSite=Strict${secure ? '; Secure' : ''}`);
}

export function handOverSecret(res: Response, opts: { key: string; secure: boolean; userId: string; clientId: string; secret: string }): void {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', keyOf(opts.key), iv);
  const sealed = Buffer.concat([cipher.update(JSON.stringify({ u: opts.userId, c: opts.clientId, s: opts.secret }), 'utf8'), cipher.final()]);
  setCookie(res, opts.clientId, Buffer.concat([iv, cipher.getAuthTag(), sealed]).toString('base64url'), MAX_AGE, opts.secure);
}

/** The secret handed over for this user's app, once: the cookie is cleared whatever it held. */
export function takeSecret(req: Request, res: Response, opts: { key: string; secure: boolean; userId: string; clientId: string }): string | undefined {
  const value = readCookie(req, COOKIE);
  if (value === undefined) return undefined;
  setCookie(res, opts.clientId, '', 0, opts.secure);
  try {
    const raw = Buffer.from(value, 'base64url');
    const decipher = createDecipheriv('aes-256-gcm', keyOf(opts.key), raw.subarray(0, 12));
    decipher.setAuthTag(raw.subarray(12, 28));
    const payload = JSON.parse(Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8')) as { u?: unknown; c?: unknown; s?: unknown };
    return payload.u === opts.userId && payload.c === opts.clientId && typeof payload.s === 'string' ? payload.s : undefined;
  } catch {
    return undefined; // tampered, truncated or sealed under an old key: no secret to show
  }
}
