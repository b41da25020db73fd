// Trakt's ids and the service's. A title's `trakt` id is its catalog row id and its slug is made from its
// name and year (core/catalog/title-keys.ts); `tmdb` is the movie database id (`movie_db_id`), `imdb`
// the film database id (`film_db_id`), `tvdb` the TV database id (`tv_db_id`). Request bodies name
// titles by any of them; resolveTraktTitles finds each in one statement per kind of id (and fetches a
// title the catalog lacks from the metadata provider when one is configured, as every other path does).
import type { EntityManager } from '@mikro-orm/postgresql';
import { z } from 'zod';
import { resolveOrFetchTitles } from '../core/catalog/fetch/registry.ts';
import type { ResolvedTitle, TitleRef } from '../core/catalog/resolve.ts';
import { titleBySlug, titlesByRowId, titleSlug } from '../core/catalog/title-keys.ts';

export type TitleType = 'movie' | 'show';

/** `ids` as Trakt's requests carry them (unknown ids such as `tvrage` are ignored). */
export const traktIds = z
  .object({
    trakt: z.union([z.number().int().positive(), z.string().regex(/^\d+$/)]).optional(),
    slug: z.string().max(300).optional(),
    imdb: z.string().max(20).optional(),
    tmdb: z.union([z.number().int().positive(), z.string().regex(/^\d+$/)]).optional(),
    tvdb: z.union([z.number().int().positive(), z.string().regex(/^\d+$/)]).optional(),
  })
  .loose();
export type TraktIds = z.infer<typeof traktIds>;

/** Trakt's `ids` of a movie. */
function movieIds(t: ResolvedTitle) {
  return { trakt: Number(t.id), slug: titleSlug(t.name, t.year), imdb: t.filmDbId, tmdb: t.movieDbId };
}

/** Trakt's `ids` of a show. */
function showIds(t: ResolvedTitle) {
  return { trakt: Number(t.id), slug: titleSlug(t.name, t.year), tvdb: t.tvDbId, imdb: t.filmDbId, tmdb: t.movieDbId, tvrage: null };
}

/** A movie or show in Trakt's standard form: `{title, year, ids}`. */
export function standardTitle(t: ResolvedTitle) {
  return { title: t.name, year: t.year, ids: t.type === 'movie' ? movieIds(t) : showIds(t) };
}

const positiveInt = (v: number | string | undefined): number | undefined => (v === undefined ? undefined : Number(v));

/**
 * The titles items name, one answer per item in order (null: not found). An item names a title by its
 * ids (tmdb, imdb, tvdb, trakt, slug, tried in that order), or by `title` and `year` when it has no ids.
 */
export async function resolveTraktTitles(
  em: EntityManager,
  type: TitleType,
  items: ReadonlyArray<{ ids?: TraktIds | undefined; title?: string | undefined; year?: number | undefined }>,
): Promise<(ResolvedTitle | null)[]> {
  const answers: (ResolvedTitle | null)[] = items.map(() => null);
  // The ids the rest of the service takes, resolved (or fetched) together.
  const byRef: { idx: number; ref: TitleRef }[] = [];
  items.forEach((item, idx) => {
    const ids = item.ids ?? {};
    const ref: TitleRef = {
      type,
      movieDbId: positiveInt(ids.tmdb),
      filmDbId: ids.imdb || undefined,
      tvDbId: type === 'show' ? positiveInt(ids.tvdb) : undefined,
      ...(ids.trakt === undefined && !ids.slug && ids.tmdb === undefined && !ids.imdb && ids.tvdb === undefined ? { title: item.title, year: item.year } : {}),
    };
    if (ref.movieDbId !== undefined || ref.filmDbId !== undefined || ref.tvDbId !== undefined || ref.title) byRef.push({ idx, ref });
  });
  if (byRef.length) {
    const found = await resolveOrFetchTitles(em, byRef.map((r) => r.ref));
    byRef.forEach((r, i) => (answers[r.idx] = found[i] ?? null));
  }
  // Then the service's own keys for what is still unfound.
  const byRow = items.flatMap((item, idx) => (answers[idx] === null && item.ids?.trakt !== undefined ? [{ idx, id: String(item.ids.trakt) }] : []));
  if (byRow.length) {
    const found = await titlesByRowId(em, type, byRow.map((r) => r.id));
    byRow.forEach((r, i) => (answers[r.idx] = found[i] ?? null));
  }
  for (const [idx, item] of items.entries()) {
    if (answers[idx] === null && item.ids?.slug) answers[idx] = await titleBySlug(em, type, item.ids.slug);
  }
  return answers;
}

/**
 * The title a path's id names (`/movies/:id`, `/shows/:id`): a Trakt id (the row id), an IMDb-style film
 * database id (`tt0133093`), or a slug.
 */
export async function titleOfPathId(em: EntityManager, type: TitleType, id: string): Promise<ResolvedTitle | null> {
  if (/^\d+$/.test(id)) return (await titlesByRowId(em, type, [id]))[0] ?? null;
  if (/^tt\d+$/.test(id)) return (await resolveTraktTitles(em, type, [{ ids: { imdb: id } }]))[0] ?? null;
  return titleBySlug(em, type, id);
}
