// What the ratings API does for the acting user, one transaction each: rate a movie, a show, a season
// or an episode (the scope follows from what is named: a movie is `title`, a show `series`), remove a
// rating, mark a favourite, set or clear a status. Unknown titles, seasons and episodes are 404.
import type { EntityManager } from '@mikro-orm/postgresql';
import { resolveOrFetchTitle } from '../catalog/fetch/registry.ts';
import { resolveEpisodes, resolveTitle } from '../catalog/resolve.ts';
import { transaction } from '../db/transaction.ts';
import { invalidRequest, notFound } from '../errors.ts';
import { libraryItems, type LibraryItem, type ShowStatus } from './library-items.ts';
import { removeRating, setRating, type RatingTarget } from './ratings-write.ts';
import { lockTitleStates, ratingById, seasonExists } from './title-state-repository.ts';
import { MOVIE_STATUSES, setFavourite, writeShowStatus, type StateTitle } from './title-state-write.ts';

export type TitleKey = { type: 'movie' | 'show'; movieDbId: number };

/**
 * Before the write's transaction, where a title the catalog lacks may be fetched from the metadata
 * provider (`fetch`: for a write that adds; undoing one on a title the catalog lacks is a 404 as ever).
 */
async function findTitle(em: EntityManager, key: TitleKey, fetch: boolean): Promise<StateTitle> {
  const ref = { type: key.type, movieDbId: key.movieDbId };
  const title = fetch ? await resolveOrFetchTitle(em, ref) : await resolveTitle(em, ref);
  if (!title) throw notFound(`The ${key.type} ${key.movieDbId}`);
  return { id: title.id, type: title.type, movieDbId: title.movieDbId };
}

export type RateInput = TitleKey & { season?: number | undefined; episode?: number | undefined; rating: number };

async function ratingTarget(em: EntityManager, input: RateInput): Promise<RatingTarget> {
  if (input.type === 'movie' && (input.season !== undefined || input.episode !== undefined)) throw invalidRequest('season and episode are only for shows');
  if (input.episode !== undefined && input.season === undefined) throw invalidRequest('episode needs season');
  const title = await findTitle(em, input, true);
  if (input.type === 'movie') return { titleId: title.id, scope: 'title', season: null, episode: null };
  if (input.season === undefined) return { titleId: title.id, scope: 'series', season: null, episode: null };
  if (input.episode === undefined) {
    if (!(await seasonExists(em, title.id, input.season))) throw notFound(`Season ${input.season} of show ${input.movieDbId}`);
    return { titleId: title.id, scope: 'season', season: input.season, episode: null };
  }
  const [ep] = await resolveEpisodes(em, [{ titleId: title.id, season: input.season, episode: input.episode }]);
  if (!ep) throw notFound(`Episode S${input.season}E${input.episode} of show ${input.movieDbId}`);
  return { titleId: title.id, scope: 'episode', season: ep.season, episode: ep.episode };
}

/** Sets the rating (again with the same value changes nothing); answers the rating item. */
export async function rate(em: EntityManager, userId: string, input: RateInput): Promise<LibraryItem> {
  const target = await ratingTarget(em, input);
  return transaction(em, async (tx) => {
    const set = await setRating(tx, userId, target, input.rating);
    if (set.item) return set.item;
    const [item] = await libraryItems(tx, userId, 'ratings', { ids: [set.id] });
    return item!;
  });
}

/** Removes one of the user's ratings by its id. */
export function unrate(em: EntityManager, userId: string, id: number): Promise<void> {
  return transaction(em, async (tx) => {
    await lockTitleStates(tx, userId);
    const row = await ratingById(tx, userId, id);
    if (!row) throw notFound('Rating');
    await removeRating(tx, userId, { titleId: String(row.title_id), scope: row.scope, season: row.season_number, episode: row.episode_number });
  });
}

/** Marks or unmarks a favourite (idempotent); the favourite item, or null after unmarking. */
export async function markFavourite(em: EntityManager, userId: string, key: TitleKey, favourite: boolean): Promise<LibraryItem | null> {
  const title = await findTitle(em, key, favourite);
  return transaction(em, (tx) => setFavourite(tx, userId, title, favourite));
}

/** Sets (or with null clears) the status the user chose; the status item, or null after clearing. */
export async function chooseStatus(em: EntityManager, userId: string, key: TitleKey, status: ShowStatus | null): Promise<LibraryItem | null> {
  if (status !== null && key.type === 'movie' && !MOVIE_STATUSES.includes(status)) {
    throw invalidRequest(`a movie's status is one of ${MOVIE_STATUSES.join(', ')}`);
  }
  const title = await findTitle(em, key, status !== null);
  return transaction(em, async (tx) => {
    await writeShowStatus(tx, userId, title, status, 'user');
    const [item] = await libraryItems(tx, userId, 'statuses', { titleId: title.id });
    return item ?? null;
  });
}
