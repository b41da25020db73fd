// Trakt's ratings read (GET /sync/ratings/{type?}/{rating?}, /users/{id}/ratings/{type?}/{rating?}):
// the ratings procedure's pages (by scope; counted from the kept counts), each page's titles, seasons and
// episodes looked up in one batch each. Pagination is optional: without `page` or `limit` every rating
// of the type is answered (the procedure's pages of 100 in turn). The procedure has no filter by value,
// so `/{rating}` reads the user's ratings of those values (core/library/ratings-by-value-repository.ts)
// under the procedure's scope, ratings:read, which the routes carry.
import { invalidRequest, notFound } from '../core/errors.ts';
import { countRatingsOfValues, ratingsOfValues } from '../core/library/ratings-by-value-repository.ts';
import { pageEpisodes, pageSeasons, pageTitles, titleField, traktEpisode, traktSeason } from './library-present.ts';
import { asksForPage, MAX_LIMIT, pageOf, paginationHeaders } from './paging.ts';
import type { TraktAnswer, TraktCall } from './route.ts';

type Scope = 'title' | 'series' | 'season' | 'episode';
const SCOPES: Record<string, Scope | undefined> = { movies: 'title', shows: 'series', seasons: 'season', episodes: 'episode', all: undefined };

/** A rating as both sources give it. */
type Rated = { type: 'movie' | 'show'; movieDbId: number; scope: Scope; season: number | null; episode: number | null; rating: number; ratedAt: string };

/** `9` or `8,9,10`: the values asked for. */
function ratingValues(text: string): number[] {
  const values = text.split(',').map((v) => v.trim());
  if (values.length > 10 || !values.every((v) => /^(10|[1-9])$/.test(v))) throw invalidRequest('rating must be 1 to 10 (several comma-separated)');
  return [...new Set(values.map(Number))];
}

async function present(call: TraktCall, items: Rated[]) {
  const titleOf = await pageTitles(call.em, items.map((r) => ({ type: r.type, movieDbId: r.movieDbId })));
  const titleId = (r: Rated) => titleOf({ type: r.type, movieDbId: r.movieDbId })?.id;
  const inShow = items.filter((r) => titleId(r) !== undefined && r.season !== null);
  const seasonOf = await pageSeasons(call.em, inShow.filter((r) => r.scope === 'season').map((r) => ({ titleId: titleId(r)!, season: r.season! })));
  const episodeOf = await pageEpisodes(call.em, inShow.filter((r) => r.scope === 'episode' && r.episode !== null).map((r) => ({ titleId: titleId(r)!, season: r.season!, episode: r.episode! })));
  return items.flatMap((r) => {
    const t = titleOf({ type: r.type, movieDbId: r.movieDbId });
    if (!t) return [];
    const base = { rated_at: r.ratedAt, rating: r.rating };
    if (r.scope === 'title') return [{ ...base, type: 'movie', ...titleField(t) }];
    if (r.scope === 'series') return [{ ...base, type: 'show', ...titleField(t) }];
    if (r.scope === 'season') return [{ ...base, type: 'season', season: traktSeason(r.season!, seasonOf(t.id, r.season!)), ...titleField(t) }];
    return [{ ...base, type: 'episode', episode: traktEpisode(r.season!, r.episode!, episodeOf({ titleId: t.id, season: r.season!, episode: r.episode! })), ...titleField(t) }];
  });
}

/** A page of the ratings procedure, as `Rated`. */
async function procedurePage(call: TraktCall, scope: Scope | undefined, page: number, pageSize: number) {
  const answer = await call.procedures.platform.ratings.ratings({ page, pageSize, ...(scope ? { scope } : {}) });
  const items: Rated[] = answer.items.map((i) => ({
    type: i.scope === 'title' ? 'movie' : 'show',
    movieDbId: i.movieDbId,
    scope: i.scope,
    season: i.season,
    episode: i.episode,
    rating: i.rating!,
    ratedAt: i.ratedAt ?? i.updatedAt,
  }));
  return { items, total: answer.total };
}

export async function ratingsAnswer(call: TraktCall, type: string | undefined, rating: string | undefined): Promise<TraktAnswer> {
  if (type !== undefined && !Object.hasOwn(SCOPES, type)) throw notFound(`Ratings of "${type}"`);
  const scope = type === undefined ? undefined : SCOPES[type];
  const paged = asksForPage(call.query);
  const page = pageOf(call.query);
  if (rating !== undefined) {
    const values = ratingValues(rating);
    const userId = call.actor!.userId;
    const rows = await ratingsOfValues(call.em, userId, scope, values, paged ? page : undefined);
    const items: Rated[] = rows.map((r) => ({
      type: r.type,
      movieDbId: r.movie_db_id,
      scope: r.scope,
      season: r.season_number,
      episode: r.episode_number,
      rating: r.rating,
      ratedAt: new Date(r.rated_at).toISOString(),
    }));
    const headers = paged ? paginationHeaders(page, await countRatingsOfValues(call.em, userId, scope, values)) : undefined;
    return { body: await present(call, items), ...(headers ? { headers } : {}) };
  }
  if (paged) {
    const { items, total } = await procedurePage(call, scope, page.page, page.limit);
    return { body: await present(call, items), headers: paginationHeaders(page, total) };
  }
  // Every rating: the procedure's pages in turn, until its total is read.
  const all: Rated[] = [];
  for (let n = 1; ; n++) {
    const { items, total } = await procedurePage(call, scope, n, MAX_LIMIT);
    all.push(...items);
    if (items.length < MAX_LIMIT || all.length >= total) break;
  }
  return { body: await present(call, all) };
}
