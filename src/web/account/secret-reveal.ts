// A new secret reaches its owner once: the POST that makes it redirects to the page that shows it (so a
// reload never registers or rotates again) and hands the secret over in a cookie that page reads and
// clears in the same response, so a reload no longer shows it. The cookie is encrypted and authenticated
// (AES-256-GCM under a key derived from the provider's cookie key), names the user and what it belongs
// to (another account's page, or another app's or webhook's, never shows it), is sent only to that
// page, and lives 5 minutes at most when never read. Nothing is stored on the server, so it works across
// instances. An app's client secret is one such value; a webhook's secret and the outcome of its test
// message (app-webhooks.ts) are others, each under a cookie of its own.
import { createCipheriv, createDecipheriv, createHmac, randomBytes } from 'node:crypto';
import type { Request, Response } from 'express';
import { readCookie } from '../../oauth/cookies.ts';

const MAX_AGE = 5 * 60;

/** Where a value handed over once goes: its cookie's name, the page it is sent to, and what it belongs to. */
export type RevealAt = { cookie: string; path: string; subject: string };
type Keys = { key: string; secure: boolean; userId: string };

const keyOf = (key: string) => createHmac('sha256', key).update('developer-app-secret-reveal').digest();
const appSecretAt = (clientId: string): RevealAt => ({ cookie: 'mts_app_secret', path: `/account/apps/${encodeURIComponent(clientId)}`, subject: clientId });

function setCookie(res: Response, at: RevealAt, value: string, maxAge: number, secure: boolean) {
  res.append('Set-Cookie', `${at.cookie}=${value}; Path=${at.path}; Max-Age=${maxAge}; HttpOnly; SameSite=Strict${secure ? '; Secure' : ''}`);
}

export function handOver(res: Response, opts: Keys, at: RevealAt, value: string): void {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', keyOf(opts.key), iv);
  const sealed = Buffer.concat([cipher.update(JSON.stringify({ u: opts.userId, c: at.subject, s: value }), 'utf8'), cipher.final()]);
  setCookie(res, at, Buffer.concat([iv, cipher.getAuthTag(), sealed]).toString('base64url'), MAX_AGE, opts.secure);
}

/** The value handed over for this user and subject, once: the cookie is cleared whatever it held. */
export function takeOnce(req: Request, res: Response, opts: Keys, at: RevealAt): string | undefined {
  const value = readCookie(req, at.cookie);
  if (value === undefined) return undefined;
  setCookie(res, at, '', 0, opts.secure);
  try {
    const raw = Buffer.from(value, 'base64url');
    const decipher = createDecipheriv('aes-256-gcm', keyOf(opts.key), raw.subarray(0, 12));
    decipher.setAuthTag(raw.subarray(12, 28));
    const payload = JSON.parse(Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8')) as { u?: unknown; c?: unknown; s?: unknown };
    return payload.u === opts.userId && payload.c === at.subject && typeof payload.s === 'string' ? payload.s : undefined;
  } catch {
    return undefined; // tampered, truncated or sealed under an old key: nothing to show
  }
}

export function handOverSecret(res: Response, opts: Keys & { clientId: string; secret: string }): void {
  handOver(res, opts, appSecretAt(opts.clientId), opts.secret);
}

/** The client secret handed over for this user's app, once. */
export function takeSecret(req: Request, res: Response, opts: Keys & { clientId: string }): string | undefined {
  return takeOnce(req, res, opts, appSecretAt(opts.clientId));
}
