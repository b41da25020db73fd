// The bodies of Trakt's sync writes (POST /sync/{history,ratings,watchlist,collection}[/remove]):
// `movies`, `shows` (optionally with `seasons` and their `episodes`), `seasons` and `episodes`, each item
// naming its media by `ids` (a movie or a show also by `title` + `year`), with the fields of the write
// (`watched_at`, `rating` and `rated_at`, `collected_at` and the media fields). Fields Trakt documents
// that this service has no place for (`notes`, `audio_channels`, ...) are accepted and ignored, as are
// unknown ones. A body that is no object is 400; a field of the wrong type, a rating outside 1 to 10, a
// date in the future or an item that names nothing is 422 for the whole body, nothing written.
import { z } from 'zod';
import { ApiError } from '../core/errors.ts';
import { IN_FUTURE, notInFuture, wireDateTime } from '../core/wire/dates.ts';
import { describeZodError } from '../rpc/errors.ts';
import { traktIds } from './ids.ts';

// A date something happened: never ahead of the server's clock (the rule of every dated write).
const when = wireDateTime()
  .refine((s) => notInFuture(Date.parse(s)), IN_FUTURE)
  .nullish();
const rating = z.number().int().min(1).max(10);

const written = { watched_at: when, rated_at: when, collected_at: when, rating: rating.optional() };
// Trakt's collection metadata; only media_type and resolution choose this service's format.
const media = { media_type: z.string().max(50).nullish(), resolution: z.string().max(50).nullish() };

const episodeEntry = z.object({ number: z.number().int().min(1).max(100_000), ...written, ...media }).loose();
const seasonEntry = z.object({ number: z.number().int().min(0).max(1000), episodes: z.array(episodeEntry).max(10_000).nullish(), ...written, ...media }).loose();

const namesIt = (i: { ids?: object | undefined; title?: string | undefined }) => (i.ids !== undefined && Object.keys(i.ids).length > 0) || i.title !== undefined;
const NAMES_NOTHING = { message: 'name the item by ids (or title and year)' };

const titleItem = z
  .object({ ids: traktIds.optional(), title: z.string().min(1).max(500).optional(), year: z.number().int().min(1800).max(3000).optional(), ...written, ...media })
  .loose()
  .refine(namesIt, NAMES_NOTHING);
const showItem = z
  .object({
    ids: traktIds.optional(),
    title: z.string().min(1).max(500).optional(),
    year: z.number().int().min(1800).max(3000).optional(),
    seasons: z.array(seasonEntry).max(1000).nullish(),
    ...written,
    ...media,
  })
  .loose()
  .refine(namesIt, NAMES_NOTHING);
const idItem = z.object({ ids: traktIds, ...written, ...media }).loose().refine(namesIt, NAMES_NOTHING);

const bulkBody = z
  .object({
    movies: z.array(titleItem).nullish(),
    shows: z.array(showItem).nullish(),
    seasons: z.array(idItem).nullish(),
    episodes: z.array(idItem).nullish(),
    // POST /sync/history/remove only: history entry ids.
    ids: z.array(z.number().int().positive()).nullish(),
  })
  .loose();

type MovieItem = z.infer<typeof titleItem>;
export type ShowItem = z.infer<typeof showItem>;
export type SeasonEntry = z.infer<typeof seasonEntry>;
export type EpisodeEntry = z.infer<typeof episodeEntry>;
export type IdItem = z.infer<typeof idItem>;

/** A sync write's body, every list present (empty when not sent). */
export type SyncBody = { movies: MovieItem[]; shows: ShowItem[]; seasons: IdItem[]; episodes: IdItem[]; ids: number[] };

/** Reads a body; `needsRating`: every item (or, in a show, each season or episode) must carry a rating. */
export function parseSyncBody(raw: unknown, opts: { needsRating?: boolean } = {}): SyncBody {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) throw new ApiError('invalid_request', 'The body must be a JSON object');
  const parsed = bulkBody.safeParse(raw);
  if (!parsed.success) throw new ApiError('invalid_request', describeZodError(parsed.error), {}, 422);
  const b = parsed.data;
  const body: SyncBody = { movies: b.movies ?? [], shows: b.shows ?? [], seasons: b.seasons ?? [], episodes: b.episodes ?? [], ids: b.ids ?? [] };
  if (opts.needsRating) {
    const unrated = [
      ...body.movies.filter((i) => i.rating === undefined).map(() => 'movies'),
      ...body.shows.filter((s) => s.rating === undefined && !(s.seasons ?? []).some((se) => se.rating !== undefined || (se.episodes ?? []).some((e) => e.rating !== undefined))).map(() => 'shows'),
      ...body.seasons.filter((i) => i.rating === undefined).map(() => 'seasons'),
      ...body.episodes.filter((i) => i.rating === undefined).map(() => 'episodes'),
    ];
    if (unrated.length) throw new ApiError('invalid_request', `${unrated[0]}: every item needs a rating (1 to 10)`, {}, 422);
  }
  return body;
}

/** The not_found part of an answer: the items as sent, by kind. */
export type NotFound = { movies: unknown[]; shows: unknown[]; seasons: unknown[]; episodes: unknown[] };
