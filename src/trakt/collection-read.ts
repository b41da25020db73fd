// Trakt's collection read (GET /sync/collection/{movies|shows}): the collection procedure's items (its
// cursor pages in turn: Trakt answers the whole collection), each title looked up in one batch. The
// service collects a title or a season in a format, not single episodes: a show's collected seasons
// list the catalog's episodes of those seasons (every regular season for a whole show), each with the
// item's time. `metadata` (extended=metadata) carries the format as Trakt's media_type.
import { regularEpisodeNumbers } from '../core/catalog/episode-keys.ts';
import type { CollectionFormat } from '../core/collection/schemas.ts';
import { notFound } from '../core/errors.ts';
import { standardTitle } from './ids.ts';
import { pageTitles } from './library-present.ts';
import type { TraktAnswer, TraktCall } from './route.ts';
import { extendedHas } from './watched-read.ts';

const PAGE = 200;

/** Trakt's `media_type` (and resolution) of a format. */
const MEDIA: Record<CollectionFormat, { media_type: string; resolution: string | null }> = {
  uhd_bluray: { media_type: 'bluray', resolution: 'uhd_4k' },
  bluray: { media_type: 'bluray', resolution: 'hd_1080p' },
  hd_dvd: { media_type: 'hddvd', resolution: 'hd_1080p' },
  dvd: { media_type: 'dvd', resolution: 'sd_480p' },
  digital: { media_type: 'digital', resolution: null },
  vhs: { media_type: 'vhs', resolution: 'sd_480p' },
  laserdisc: { media_type: 'laserdisc', resolution: 'sd_480p' },
};
const metadataOf = (format: CollectionFormat) => ({ ...MEDIA[format], hdr: null, audio: null, audio_channels: null, '3d': false });

export async function collectionAnswer(call: TraktCall, type: string): Promise<TraktAnswer> {
  if (type !== 'movies' && type !== 'shows') throw notFound(`Collection of "${type}"`);
  const kind = type === 'movies' ? 'movie' : 'show';
  const withMetadata = extendedHas(call.query, 'metadata');
  const items = [];
  let cursor: string | undefined;
  do {
    const page = await call.procedures.platform.collection.list({ limit: PAGE, ...(cursor ? { cursor } : {}) });
    items.push(...page.items.filter((i) => i.type === kind));
    cursor = page.nextCursor;
  } while (cursor);
  const titleOf = await pageTitles(call.em, items.map((i) => ({ type: i.type, movieDbId: i.movieDbId })));
  if (kind === 'movie') {
    const body = items.flatMap((i) => {
      const t = titleOf(i);
      return t ? [{ collected_at: i.addedAt, updated_at: i.addedAt, movie: standardTitle(t), ...(withMetadata ? { metadata: metadataOf(i.format) } : {}) }] : [];
    });
    return { body };
  }
  // Per show (in the order its first item comes): its items, newest first.
  const shows = new Map<string, typeof items>();
  for (const i of items) {
    const t = titleOf(i);
    if (t) shows.set(t.id, [...(shows.get(t.id) ?? []), i]);
  }
  const episodes = await regularEpisodeNumbers(call.em, [...shows.keys()]);
  const body = [...shows.entries()].map(([titleId, owned]) => {
    const t = titleOf(owned[0]!)!;
    const latest = owned.map((i) => i.addedAt).sort().at(-1)!;
    // The item that covers each season: the season's own, else the whole show's.
    const whole = owned.find((i) => i.season === 0);
    const seasons = new Map<number, { number: number; episodes: Record<string, unknown>[] }>();
    for (const e of episodes) {
      if (String(e.title_id) !== titleId) continue;
      const item = owned.find((i) => i.season === e.season_number) ?? whole;
      if (!item) continue;
      const season = seasons.get(e.season_number) ?? { number: e.season_number, episodes: [] };
      seasons.set(e.season_number, season);
      season.episodes.push({ number: e.episode_number, collected_at: item.addedAt, ...(withMetadata ? { metadata: metadataOf(item.format) } : {}) });
    }
    return { last_collected_at: latest, last_updated_at: latest, show: standardTitle(t), seasons: [...seasons.values()] };
  });
  return { body };
}
