// Jellyfin's webhook plugin, generic destination: the plugin's data object as JSON ("Send All
// Properties", or a template naming its variables), often sent as text/plain. PlaybackStart, PlaybackProgress
// (a pause is a progress with IsPaused) and PlaybackStop of movies and episodes. Positions are ticks (100
// ns). The plugin names a movie's provider ids (`Provider_tmdb`, `Provider_imdb`, `Provider_tvdb`) but
// only an episode's own, so an episode's show is found by its name and year (the series' year).
import { z } from 'zod';
import {
  catalogId, filmId, intIn, looseBoolean, looseNumber, looseText, ticksToSeconds, timeOf, unreadable, type ReadPayload, type ServerMedia,
} from './server-event.ts';

const payload = z.looseObject({
  NotificationType: z.string().min(1).max(100),
  ServerId: looseText,
  ItemId: looseText,
  ItemType: looseText,
  Name: looseText,
  SeriesName: looseText,
  Year: looseNumber,
  SeasonNumber: looseNumber,
  EpisodeNumber: looseNumber,
  EpisodeNumberEnd: looseNumber,
  RunTimeTicks: looseNumber,
  PlaybackPositionTicks: looseNumber,
  IsPaused: looseBoolean,
  PlayedToCompletion: looseBoolean,
  Provider_tmdb: looseText,
  Provider_imdb: looseText,
  Provider_tvdb: looseText,
  UserId: looseText,
  NotificationUsername: looseText,
  Username: looseText,
  DeviceId: looseText,
  DeviceName: looseText,
  UtcTimestamp: looseText,
});

type Payload = z.infer<typeof payload>;

function actionOf(p: Payload) {
  switch (p.NotificationType) {
    case 'PlaybackStart':
      return { action: 'start', watched: false } as const;
    case 'PlaybackProgress':
      return { action: p.IsPaused ? 'pause' : 'progress', watched: false } as const;
    case 'PlaybackStop':
      return { action: 'stop', watched: p.PlayedToCompletion === true } as const;
    default:
      return undefined;
  }
}

export function readJellyfin(body: unknown): ReadPayload {
  const parsed = payload.safeParse(body);
  if (!parsed.success) return unreadable('The payload must be a Jellyfin webhook: a JSON object with its `NotificationType`');
  const p = parsed.data;
  const mapped = actionOf(p);
  if (!mapped) return { kind: 'ignored', reason: 'event_not_tracked', event: p.NotificationType };
  if (p.ItemType !== 'Movie' && p.ItemType !== 'Episode') return { kind: 'ignored', reason: 'media_not_tracked', event: p.NotificationType };
  const item = p.ItemId ?? unreadable('ItemId is required');
  const episode = p.ItemType === 'Episode';
  const title = (episode ? p.SeriesName : p.Name) ?? unreadable(episode ? 'SeriesName is required for an episode' : 'Name is required');
  const year = intIn(p.Year, 1850, 2200);
  const media: ServerMedia = episode
    ? {
      type: 'episode', title, year, season: intIn(p.SeasonNumber, 0, 10_000), episode: intIn(p.EpisodeNumber, 1, 100_000),
      episodeEnd: intIn(p.EpisodeNumberEnd, 1, 100_000), episodeTitle: p.Name,
    }
    : { type: 'movie', title, year, movieDbId: catalogId(p.Provider_tmdb), filmDbId: filmId(p.Provider_imdb), tvDbId: catalogId(p.Provider_tvdb) };
  const name = p.NotificationUsername ?? p.Username ?? null;
  return {
    kind: 'event',
    event: {
      kind: 'jellyfin',
      ...mapped,
      event: p.NotificationType,
      account: { id: p.UserId ?? null, name },
      play: { server: p.ServerId ?? '', account: p.UserId ?? name ?? '', player: p.DeviceId ?? p.DeviceName ?? '', item },
      occurredAt: timeOf(p.UtcTimestamp),
      media,
      positionSeconds: ticksToSeconds(p.PlaybackPositionTicks),
      durationSeconds: p.RunTimeTicks !== undefined && p.RunTimeTicks > 0 ? ticksToSeconds(p.RunTimeTicks) : null,
    },
  };
}
