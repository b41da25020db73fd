// What a media server's webhook says, once read (plex.ts, jellyfin.ts, emby.ts): one playback event in
// the service's terms, or why it is not one. Each server's reader is liberal in what it takes (numbers as
// text, absent fields) and names the field it could not do without.
import { z } from 'zod';
import type { PlaybackAction } from '../playback/schemas.ts';
import type { MediaServerKind } from '../schema/media-servers.ts';

export type ServerMedia = {
  type: 'movie' | 'episode';
  /** The movie's title, or the episode's show's. */
  title: string;
  year?: number | undefined;
  season?: number | undefined;
  episode?: number | undefined;
  episodeEnd?: number | undefined;
  episodeTitle?: string | undefined;
  /** Ids of the movie, or of the episode's show (never an episode's own ids). */
  movieDbId?: number | undefined;
  filmDbId?: string | undefined;
  tvDbId?: number | undefined;
};

export type ServerEvent = {
  kind: MediaServerKind;
  action: PlaybackAction;
  /** The server's own name of the event, as it sent it. */
  event: string;
  /** The server says the item was watched (Plex's scrobble, PlayedToCompletion): a stop completes the watch. */
  watched: boolean;
  account: { id: string | null; name: string | null };
  /** Who is playing what where: the server, its account, the player and the item (and the server's session, when it sends one). */
  play: { server: string; account: string; player: string; item: string; session?: string | undefined };
  /** When the server says it happened (ms), if it says. */
  occurredAt: number | null;
  media: ServerMedia;
  positionSeconds: number | null;
  durationSeconds: number | null;
};

/** Why a well-formed webhook records nothing (the server gets a 200 and does not send it again). */
export type IgnoredReason = 'event_not_tracked' | 'media_not_tracked' | 'other_account' | 'test';

export type ReadPayload = { kind: 'event'; event: ServerEvent } | { kind: 'ignored'; reason: IgnoredReason; event: string };

/** A payload a reader cannot use: the server is told which field, with a 400. */
export class UnreadablePayload extends Error {}

export const unreadable = (message: string): never => {
  throw new UnreadablePayload(message);
};

// ---- liberal field readers: servers (and Jellyfin's user-written templates) send numbers as text

/** A finite number, or its decimal text; anything else undefined. */
export const looseNumber = z.preprocess((v) => (typeof v === 'string' && v.trim() !== '' ? Number(v) : v), z.number().finite()).optional().catch(undefined);

/** Text (a number stands for its text); empty and anything else undefined. */
export const looseText = z
  .preprocess((v) => (typeof v === 'number' && Number.isFinite(v) ? String(v) : typeof v === 'string' ? v.trim() : v), z.string().min(1))
  .optional()
  .catch(undefined);

/** true, false, or their text. */
export const looseBoolean = z.preprocess((v) => (v === 'true' || v === 'True' ? true : v === 'false' || v === 'False' ? false : v), z.boolean()).optional().catch(undefined);

/** An integer within a range, else undefined. */
export function intIn(value: number | undefined, min: number, max: number): number | undefined {
  return value !== undefined && Number.isInteger(value) && value >= min && value <= max ? value : undefined;
}

/** A positive integer id (the movie or TV database's), from a number or its text. */
export function catalogId(value: unknown): number | undefined {
  const n = typeof value === 'string' && /^\d{1,10}$/.test(value.trim()) ? Number(value) : value;
  return typeof n === 'number' ? intIn(n, 1, 2_147_483_647) : undefined;
}

/** A film database id (`tt` and digits). */
export function filmId(value: unknown): string | undefined {
  return typeof value === 'string' && /^tt\d{1,10}$/.test(value.trim()) ? value.trim() : undefined;
}

const TICKS_PER_SECOND = 10_000_000;

/** Jellyfin's and Emby's ticks (100 ns) as whole seconds. */
export const ticksToSeconds = (ticks: number | undefined): number | null => (ticks !== undefined && ticks >= 0 ? Math.floor(ticks / TICKS_PER_SECOND) : null);

/** A provider-id map's value by a key in any letter case (`Tmdb`, `tmdb`, `TMDB`). */
export function providerId(ids: Record<string, unknown> | undefined, key: string): unknown {
  if (!ids) return undefined;
  const found = Object.keys(ids).find((k) => k.toLowerCase() === key);
  return found === undefined ? undefined : ids[found];
}

/** An ISO date-time as ms, or null. */
export function timeOf(value: string | undefined): number | null {
  const ms = value === undefined ? NaN : Date.parse(value);
  return Number.isFinite(ms) ? ms : null;
}
