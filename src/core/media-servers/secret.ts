// The capability of a receiver: a random secret in its URLs. Only its sha256 is stored, and a request's
// secret is found by that hash through a unique index (one lookup whatever the secret, so the answer
// time says nothing about how close a guess came). A 32-byte random secret is a key, not a password: a
// fast hash is enough, no guessing can reach it.
import { createHash } from 'node:crypto';
import { randomBase64url } from '../security/random.ts';
import { MEDIA_SERVER_KINDS, type MediaServerKind } from '../schema/media-servers.ts';

/** Where receivers are served, below BASE_URL: `{HOOKS_PATH}/{secret}/{kind}`. */
export const HOOKS_PATH = '/hooks/media-server';

const PREFIX = 'msh_';
/** `msh_` and 32 random bytes in base64url. */
const SECRET_PATTERN = /^msh_[A-Za-z0-9_-]{43}$/;

export const newSecret = (): string => `${PREFIX}${randomBase64url(32)}`;

export const secretHash = (secret: string): string => createHash('sha256').update(secret).digest('base64url');

/** Whether a path segment could be a secret at all (anything else is not looked up). */
export const isSecretShaped = (s: string): boolean => SECRET_PATTERN.test(s);

export type HookUrls = Record<MediaServerKind, string>;

/** The receiver's URL for each server kind. */
export function hookUrls(baseUrl: string, secret: string): HookUrls {
  return Object.fromEntries(MEDIA_SERVER_KINDS.map((kind) => [kind, `${baseUrl}${HOOKS_PATH}/${secret}/${kind}`])) as HookUrls;
}

/** A path as logs may show it: the secret of a receiver's path replaced. */
export function redactHookPath(path: string): string {
  return path.startsWith(`${HOOKS_PATH}/`) ? path.replace(/^(\/hooks\/media-server\/)[^/]+/, '$1{secret}') : path;
}
