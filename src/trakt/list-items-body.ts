// The body of Trakt's list item writes (`{movies, shows, seasons, episodes, people}`, each an array of
// objects naming a title by `ids`, or by `title` and `year`) and the counts its answers carry. The
// service's lists hold movies and shows: seasons, episodes and people always come back in `not_found`.
import type { EntityManager } from '@mikro-orm/postgresql';
import { z } from 'zod';
import { ApiError } from '../core/errors.ts';
import type { ResolvedTitle } from '../core/catalog/resolve.ts';
import { resolveTraktTitles, traktIds } from './ids.ts';

const named = z.object({ ids: traktIds.optional(), title: z.string().max(300).optional(), year: z.number().int().optional() }).loose();
const MAX_ITEMS = 1000;

export const listItemsBody = z
  .object({
    movies: z.array(named).max(MAX_ITEMS).optional(),
    shows: z.array(named).max(MAX_ITEMS).optional(),
    seasons: z.array(z.unknown()).max(MAX_ITEMS).optional(),
    episodes: z.array(z.unknown()).max(MAX_ITEMS).optional(),
    people: z.array(z.unknown()).max(MAX_ITEMS).optional(),
  })
  .loose();
export type ListItemsBody = z.infer<typeof listItemsBody>;

type Kind = 'movies' | 'shows' | 'seasons' | 'episodes' | 'people';
export type Counts = Record<Kind, number>;
export type NotFound = Record<Kind, unknown[]>;

export const noCounts = (): Counts => ({ movies: 0, shows: 0, seasons: 0, episodes: 0, people: 0 });
const noneMissing = (): NotFound => ({ movies: [], shows: [], seasons: [], episodes: [], people: [] });

/** Trakt answers a body it cannot take with 422 and `{error, error_description}`. */
export function parseOr422<T>(schema: z.ZodType<T>, body: unknown): T {
  const parsed = schema.safeParse(body);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  const where = issue.path.length ? `${issue.path.join('.')}: ` : '';
  throw new ApiError('invalid_request', `${where}${issue.message}`, undefined, 422);
}

/** A title the body names, found in the catalog, with the kind of its array and the item as sent. */
export type Named = { kind: 'movies' | 'shows'; title: ResolvedTitle; sent: unknown };

/** The body's movies and shows found in the catalog (one resolve per type), and what was not found. */
export async function resolveBody(em: EntityManager, body: ListItemsBody): Promise<{ found: Named[]; notFound: NotFound }> {
  const notFound = noneMissing();
  const found: Named[] = [];
  for (const [kind, type] of [['movies', 'movie'], ['shows', 'show']] as const) {
    const sent = body[kind] ?? [];
    const titles = sent.length ? await resolveTraktTitles(em, type, sent) : [];
    sent.forEach((item, i) => {
      const title = titles[i];
      if (title) found.push({ kind, title, sent: item });
      else notFound[kind].push(item);
    });
  }
  for (const kind of ['seasons', 'episodes', 'people'] as const) notFound[kind].push(...(body[kind] ?? []));
  return { found, notFound };
}
