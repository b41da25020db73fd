// The capability of a receiver: `msh_` and 32 random bytes (security/capability-token.ts) in its URLs,
// stored as its SHA-256 digest and found by it through a unique index.
import { capabilityHash, capabilityToken } from '../security/capability-token.ts';
import { MEDIA_SERVER_KINDS, type MediaServerKind } from '../schema/media-servers.ts';

/** Where receivers are served, below BASE_URL: `{HOOKS_PATH}/{secret}/{kind}`. */
export const HOOKS_PATH = '/hooks/media-server';

const token = capabilityToken('msh_');

export const newSecret = token.make;

export const secretHash = capabilityHash;

/** Whether a path segment could be a secret at all (anything else is not looked up). */
export const isSecretShaped = token.isShaped;

export type HookUrls = Record<MediaServerKind, string>;

/** The receiver's URL for each server kind. */
export function hookUrls(baseUrl: string, secret: string): HookUrls {
  return Object.fromEntries(MEDIA_SERVER_KINDS.map((kind) => [kind, `${baseUrl}${HOOKS_PATH}/${secret}/${kind}`])) as HookUrls;
}

/** A path as logs may show it: the secret of a receiver's path replaced. */
export function redactHookPath(path: string): string {
  return path.startsWith(`${HOOKS_PATH}/`) ? path.replace(/^(\/hooks\/media-server\/)[^/]+/, '$1{secret}') : path;
}
