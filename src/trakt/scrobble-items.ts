// The one item a scrobble or check-in body names (Trakt's `movie`, or `episode` with its `show`), found
// in the catalog, and presented back in Trakt's shapes. A title is found by its Trakt ids (ids.ts); an
// episode by the show and `season` + `number` (or `number_abs`), or by its own `ids.trakt` (the episode's
// row id, what this facade answers as the episode's trakt id).
import type { EntityManager } from '@mikro-orm/postgresql';
import { z } from 'zod';
import { resolveEpisodes, type ResolvedEpisode, type ResolvedTitle } from '../core/catalog/resolve.ts';
import { ApiError, notFound } from '../core/errors.ts';
import { db } from '../core/db/query-builder.ts';
import { punchplayId } from '../core/playback/media.ts';
import { resolveTraktTitles, standardTitle, traktIds } from './ids.ts';

const titleRef = z.object({ title: z.string().max(500).nullish(), year: z.number().int().nullish(), ids: traktIds.optional() }).loose();
const episodeRef = z
  .object({
    season: z.number().int().min(0).max(10_000).nullish(),
    number: z.number().int().min(1).max(100_000).nullish(),
    number_abs: z.number().int().min(1).max(100_000).nullish(),
    ids: traktIds.optional(),
  })
  .loose();

/** What a scrobble or check-in body names (other fields are the route's). */
export const itemBody = z.object({ movie: titleRef.nullish(), show: titleRef.nullish(), episode: episodeRef.nullish() }).loose();
export type ItemBody = z.infer<typeof itemBody>;

/** A movie, or an episode of a show. */
export type Item = { title: ResolvedTitle; episode: ResolvedEpisode | null };

/** Trakt's validation failure (422), for a body that names no item or a bad field. */
export const unprocessable = (message: string) => new ApiError('invalid_request', message, undefined, 422);

/** The zod failure of a body as a 422 naming the first bad field. */
export function parseBody<T>(schema: z.ZodType<T>, body: unknown): T {
  const parsed = schema.safeParse(body);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  throw unprocessable(`${issue.path.map(String).join('.') || 'body'}: ${issue.message}`);
}

const refOf = (t: z.infer<typeof titleRef>) => ({ ids: t.ids, title: t.title ?? undefined, year: t.year ?? undefined });

/** The episode a row id names, with its show (one statement). */
async function episodeByRowId(em: EntityManager, id: string): Promise<{ titleId: string; season: number; episode: number } | null> {
  const row = await db(em).selectFrom('episode').select(['title_id', 'season_number', 'episode_number']).where('id', '=', id).executeTakeFirst();
  return row ? { titleId: String(row.title_id), season: row.season_number, episode: row.episode_number } : null;
}

/** The item the body names; 404 when the catalog has none, 422 when the body names none. */
export async function findItem(em: EntityManager, body: ItemBody): Promise<Item> {
  if (body.movie) {
    const [title] = await resolveTraktTitles(em, 'movie', [refOf(body.movie)]);
    if (!title) throw notFound('Movie');
    return { title, episode: null };
  }
  const ep = body.episode;
  if (!ep) throw unprocessable('Send a movie, or an episode (with its show)');
  if (!body.show) {
    // An episode alone, by its trakt id (the only episode id this service keeps).
    if (ep.ids?.trakt === undefined) throw unprocessable('An episode without its show needs ids.trakt');
    const found = await episodeByRowId(em, String(ep.ids.trakt));
    if (!found) throw notFound('Episode');
    const [title] = await resolveTraktTitles(em, 'show', [{ ids: { trakt: found.titleId } }]);
    const [episode] = await resolveEpisodes(em, [{ titleId: found.titleId, season: found.season, episode: found.episode }]);
    if (!title || !episode) throw notFound('Episode');
    return { title, episode };
  }
  const [title] = await resolveTraktTitles(em, 'show', [refOf(body.show)]);
  if (!title) throw notFound('Show');
  const hasNumber = ep.season != null && ep.number != null;
  if (!hasNumber && ep.number_abs == null) throw unprocessable('episode needs season and number, or number_abs');
  const [episode] = await resolveEpisodes(em, [hasNumber ? { titleId: title.id, season: ep.season!, episode: ep.number! } : { titleId: title.id, absolute: ep.number_abs! }]);
  if (!episode) throw notFound('Episode');
  return { title, episode };
}

/** Trakt's episode object (standard): the service keeps no tvdb/imdb/tmdb ids of episodes. */
export function traktEpisode(e: ResolvedEpisode) {
  return { season: e.season, number: e.episode, title: e.name, ids: { trakt: Number(e.id), tvdb: null, imdb: null, tmdb: null, tvrage: null } };
}

/** The item as Trakt's answers carry it: `{movie}` or `{episode, show}`. */
export function presentItem(item: Item) {
  return item.episode ? { episode: traktEpisode(item.episode), show: standardTitle(item.title) } : { movie: standardTitle(item.title) };
}

/** The item in the playback event's terms (found by the service's own id, so both resolve the same title). */
export function eventMedia(item: Item) {
  return {
    media_type: item.episode ? ('episode' as const) : ('movie' as const),
    title: item.title.name,
    punchplay_id: punchplayId(item.title.type, item.title.movieDbId),
    ...(item.episode ? { season: item.episode.season, episode: item.episode.episode } : {}),
  };
}

/** A key naming the item (for the derived event and session ids). */
export const itemKey = (item: Item): string => (item.episode ? `episode:${item.episode.id}` : `movie:${item.title.id}`);

/** The item's runtime in minutes (the episode's, else the title's; null when unknown). */
export const runtimeOf = (item: Item): number | null => item.episode?.runtimeMinutes ?? item.title.runtimeMinutes ?? null;
