// Emby's webhooks (Emby Premiere): playback.start, playback.pause, playback.unpause and playback.stop of
// movies and episodes, as JSON (or, before Emby 4.9, the same JSON in a multipart `data` field). Positions
// are ticks (100 ns): `PlaybackInfo.PositionTicks` of `Item.RunTimeTicks`. A movie's ids are its
// `Item.ProviderIds`; an episode's are its own, so its show is found by `Item.SeriesName` (the episode's
// `ProductionYear` is its own year, not the show's). The settings page's test notification is answered
// as received, so the test shows the receiver works.
import { z } from 'zod';
import type { PlaybackAction } from '../playback/schemas.ts';
import {
  catalogId, filmId, intIn, looseBoolean, looseNumber, looseText, providerId, ticksToSeconds, timeOf, unreadable, type ReadPayload, type ServerMedia,
} from './server-event.ts';

const ACTIONS: Record<string, PlaybackAction> = {
  'playback.start': 'start',
  'playback.pause': 'pause',
  'playback.unpause': 'resume',
  'playback.stop': 'stop',
};

const part = <T extends z.ZodRawShape>(shape: T) => z.looseObject(shape).optional().catch(undefined);

const payload = z.looseObject({
  Event: z.string().min(1).max(100),
  Date: looseText,
  User: part({ Id: looseText, Name: looseText }),
  Server: part({ Id: looseText }),
  Session: part({ Id: looseText, DeviceId: looseText }),
  Item: part({
    Id: looseText,
    Type: looseText,
    Name: looseText,
    SeriesName: looseText,
    ProductionYear: looseNumber,
    ParentIndexNumber: looseNumber,
    IndexNumber: looseNumber,
    IndexNumberEnd: looseNumber,
    RunTimeTicks: looseNumber,
    ProviderIds: z.record(z.string(), z.unknown()).optional().catch(undefined),
  }),
  PlaybackInfo: part({ PositionTicks: looseNumber, PlayedToCompletion: looseBoolean, PlaySessionId: looseText }),
});

export function readEmby(body: unknown): ReadPayload {
  const parsed = payload.safeParse(body);
  if (!parsed.success) return unreadable('The payload must be an Emby webhook: a JSON object with its `Event`');
  const p = parsed.data;
  if (p.Event.startsWith('system.') && p.Event.endsWith('test')) return { kind: 'ignored', reason: 'test', event: p.Event };
  const action = ACTIONS[p.Event];
  if (!action) return { kind: 'ignored', reason: 'event_not_tracked', event: p.Event };
  const it = p.Item ?? unreadable('Item is required for a playback event');
  if (it.Type !== 'Movie' && it.Type !== 'Episode') return { kind: 'ignored', reason: 'media_not_tracked', event: p.Event };
  const item = it.Id ?? unreadable('Item.Id is required');
  const episode = it.Type === 'Episode';
  const title = (episode ? it.SeriesName : it.Name) ?? unreadable(episode ? 'Item.SeriesName is required for an episode' : 'Item.Name is required');
  const ids = it.ProviderIds;
  const media: ServerMedia = episode
    ? {
      type: 'episode', title, season: intIn(it.ParentIndexNumber, 0, 10_000), episode: intIn(it.IndexNumber, 1, 100_000),
      episodeEnd: intIn(it.IndexNumberEnd, 1, 100_000), episodeTitle: it.Name,
    }
    : {
      type: 'movie', title, year: intIn(it.ProductionYear, 1850, 2200),
      movieDbId: catalogId(providerId(ids, 'tmdb')), filmDbId: filmId(providerId(ids, 'imdb')), tvDbId: catalogId(providerId(ids, 'tvdb')),
    };
  const info = p.PlaybackInfo;
  return {
    kind: 'event',
    event: {
      kind: 'emby',
      action,
      watched: action === 'stop' && info?.PlayedToCompletion === true,
      event: p.Event,
      account: { id: p.User?.Id ?? null, name: p.User?.Name ?? null },
      play: {
        server: p.Server?.Id ?? '', account: p.User?.Id ?? p.User?.Name ?? '', player: p.Session?.DeviceId ?? p.Session?.Id ?? '', item, session: info?.PlaySessionId,
      },
      occurredAt: timeOf(p.Date),
      media,
      positionSeconds: ticksToSeconds(info?.PositionTicks),
      durationSeconds: it.RunTimeTicks !== undefined && it.RunTimeTicks > 0 ? ticksToSeconds(it.RunTimeTicks) : null,
    },
  };
}
