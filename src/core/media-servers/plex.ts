// Plex's webhook (the JSON of the multipart `payload` field; Plex Pass): media.play, media.pause,
// media.resume, media.stop and media.scrobble (played past 90%) of movies and episodes. Plex sends no
// time and no id of the playback: the receiver names playbacks itself (plays.ts). A movie's ids come from
// its `Guid` list (`tmdb://`, `imdb://`, `tvdb://`) or a legacy agent's `guid`; an episode's list holds the
// episode's own ids, so its show is found by a legacy `guid` (which names the show) or by its title.
import { z } from 'zod';
import type { PlaybackAction } from '../playback/schemas.ts';
import {
  catalogId, filmId, intIn, looseNumber, looseText, unreadable, type ReadPayload, type ServerMedia,
} from './server-event.ts';

const ACTIONS: Record<string, { action: PlaybackAction; watched: boolean }> = {
  'media.play': { action: 'start', watched: false },
  'media.pause': { action: 'pause', watched: false },
  'media.resume': { action: 'resume', watched: false },
  'media.stop': { action: 'stop', watched: false },
  'media.scrobble': { action: 'stop', watched: true },
};

const part = <T extends z.ZodRawShape>(shape: T) => z.looseObject(shape).optional().catch(undefined);

const payload = z.looseObject({
  event: z.string().min(1).max(100),
  Account: part({ id: looseText, title: looseText }),
  Server: part({ uuid: looseText }),
  Player: part({ uuid: looseText }),
  Metadata: part({
    type: looseText,
    ratingKey: looseText,
    guid: looseText,
    Guid: z.array(z.looseObject({ id: looseText }).catch({ id: undefined })).max(50).optional().catch(undefined),
    title: looseText,
    grandparentTitle: looseText,
    year: looseNumber,
    parentIndex: looseNumber,
    index: looseNumber,
    viewOffset: looseNumber,
    duration: looseNumber,
  }),
});

type Ids = Pick<ServerMedia, 'movieDbId' | 'filmDbId' | 'tvDbId'>;

/** `tmdb://129`, `imdb://tt0245429`, `tvdb://81189`: a title's ids. */
function guidIds(guids: Array<{ id?: string | undefined }>): Ids {
  const ids: Ids = {};
  for (const { id } of guids) {
    const [scheme, value] = id?.split('://') ?? [];
    if (scheme === 'tmdb') ids.movieDbId ??= catalogId(value);
    else if (scheme === 'imdb') ids.filmDbId ??= filmId(value);
    else if (scheme === 'tvdb') ids.tvDbId ??= catalogId(value);
  }
  return ids;
}

/**
 * A legacy agent's guid: `com.plexapp.agents.imdb://tt0245429?lang=en`, `...themoviedb://129?lang=en`,
 * or an episode's `...thetvdb://81189/1/1?lang=en` (the show's id, then season and episode).
 */
function legacyIds(guid: string | undefined): Ids {
  const m = /^com\.plexapp\.agents\.(imdb|themoviedb|thetvdb):\/\/([^/?]+)/.exec(guid ?? '');
  if (!m) return {};
  if (m[1] === 'imdb') return { filmDbId: filmId(m[2]) };
  return m[1] === 'themoviedb' ? { movieDbId: catalogId(m[2]) } : { tvDbId: catalogId(m[2]) };
}

export function readPlex(body: unknown): ReadPayload {
  const parsed = payload.safeParse(body);
  if (!parsed.success) return unreadable('The payload must be a Plex webhook: a JSON object with its `event`');
  const p = parsed.data;
  const mapped = ACTIONS[p.event];
  if (!mapped) return { kind: 'ignored', reason: 'event_not_tracked', event: p.event };
  const m = p.Metadata ?? unreadable('Metadata is required for a media event');
  if (m.type !== 'movie' && m.type !== 'episode') return { kind: 'ignored', reason: 'media_not_tracked', event: p.event };
  const item = m.ratingKey ?? m.guid ?? unreadable('Metadata.ratingKey is required');
  const episode = m.type === 'episode';
  const title = (episode ? m.grandparentTitle : m.title) ?? unreadable(episode ? 'Metadata.grandparentTitle is required for an episode' : 'Metadata.title is required');
  const ids = episode ? legacyIds(m.guid) : { ...legacyIds(m.guid), ...guidIds(m.Guid ?? []) };
  const media: ServerMedia = episode
    ? { type: 'episode', title, season: intIn(m.parentIndex, 0, 10_000), episode: intIn(m.index, 1, 100_000), episodeTitle: m.title, ...ids }
    : { type: 'movie', title, year: intIn(m.year, 1850, 2200), ...ids };
  return {
    kind: 'event',
    event: {
      kind: 'plex',
      ...mapped,
      event: p.event,
      account: { id: p.Account?.id ?? null, name: p.Account?.title ?? null },
      play: { server: p.Server?.uuid ?? '', account: p.Account?.id ?? p.Account?.title ?? '', player: p.Player?.uuid ?? '', item },
      occurredAt: null,
      media,
      positionSeconds: m.viewOffset !== undefined && m.viewOffset >= 0 ? Math.floor(m.viewOffset / 1000) : null,
      durationSeconds: m.duration !== undefined && m.duration > 0 ? Math.round(m.duration / 1000) : null,
    },
  };
}
