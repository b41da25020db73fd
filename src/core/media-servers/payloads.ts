// The reader of each kind of server's webhook.
import type { MediaServerKind } from '../schema/media-servers.ts';
import { readEmby } from './emby.ts';
import { readJellyfin } from './jellyfin.ts';
import { readPlex } from './plex.ts';
import type { ReadPayload } from './server-event.ts';

const READERS: Record<MediaServerKind, (body: unknown) => ReadPayload> = { plex: readPlex, jellyfin: readJellyfin, emby: readEmby };

/** What `kind`'s webhook says; throws UnreadablePayload when it is not one. */
export const readPayload = (kind: MediaServerKind, body: unknown): ReadPayload => READERS[kind](body);
