// The shapes the movie database's v3 API answers with, as far as the catalog reads them. An answer that
// does not fit (a field of the wrong type, a missing id or name, an id other than the one asked for) is
// refused as a whole: a title is stored from a whole answer or not at all. Unknown fields are ignored and
// absent optional ones read as empty, as the API leaves many out.
import { z } from 'zod';
import { SourceAnswerError } from './types.ts';

/** The movie database's answer for a title did not have the shape it documents. */
export class MovieDbAnswerError extends SourceAnswerError {
  constructor(message: string) {
    super(message);
    this.name = 'MovieDbAnswerError';
  }
}

const id = z.number().int().positive();
const text = z.string().nullish();
const count = z.number().nullish();
const genres = z.array(z.looseObject({ id: z.number().nullish(), name: z.string() })).nullish();
const externalIds = z.record(z.string(), z.union([z.string(), z.number(), z.null()])).nullish();

const common = {
  id,
  tagline: text,
  overview: text,
  poster_path: text,
  backdrop_path: text,
  popularity: count,
  vote_average: count,
  vote_count: count,
  genres,
  original_language: text,
  status: text,
  adult: z.boolean().nullish(),
  external_ids: externalIds,
};

const named = (a: unknown, b: unknown) => (typeof a === 'string' && a !== '') || (typeof b === 'string' && b !== '');

export const movieAnswer = z
  .looseObject({
    ...common,
    title: text,
    original_title: text,
    release_date: text,
    runtime: count,
    imdb_id: text,
    release_dates: z.looseObject({ results: z.array(z.looseObject({ iso_3166_1: text, release_dates: z.array(z.looseObject({ certification: text })).nullish() })).nullish() }).nullish(),
  })
  .refine((m) => named(m.title, m.original_title), 'a movie without a title');

export const showAnswer = z
  .looseObject({
    ...common,
    name: text,
    original_name: text,
    first_air_date: text,
    episode_run_time: z.array(z.number()).nullish(),
    content_ratings: z.looseObject({ results: z.array(z.looseObject({ iso_3166_1: text, rating: text })).nullish() }).nullish(),
    seasons: z.array(z.looseObject({ season_number: z.number().int().min(0), name: text, overview: text, air_date: text, poster_path: text, episode_count: count })).nullish(),
  })
  .refine((s) => named(s.name, s.original_name), 'a show without a name');

export const seasonAnswer = z.looseObject({
  name: text,
  overview: text,
  air_date: text,
  poster_path: text,
  episodes: z
    .array(z.looseObject({ episode_number: z.number().int().min(1), name: text, overview: text, air_date: text, runtime: count, still_path: text }))
    .nullish(),
});

export const findAnswer = z.looseObject({
  movie_results: z.array(z.looseObject({ id })).nullish(),
  tv_results: z.array(z.looseObject({ id })).nullish(),
});

/** The answer as `schema` reads it, or MovieDbAnswerError naming the first field that does not fit. */
export function checked<T>(schema: z.ZodType<T>, answer: unknown, what: string): T {
  const parsed = schema.safeParse(answer);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  const at = issue.path.length ? ` at ${issue.path.join('.')}` : '';
  throw new MovieDbAnswerError(`the movie database's answer for ${what} does not fit${at}: ${issue.message}`);
}
