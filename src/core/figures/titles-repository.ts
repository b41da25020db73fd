// The statements of the per-title figures (titles.ts): the rows kept beside the same figures recounted
// from the user's entries of those titles only, with the window in which a show counts as completed and
// the furthest regular episode watched (one read; write-repository.ts writes the rows), and those two
// recomputed in place for the rebuild and for catalog changes.
import type { EntityManager } from '@mikro-orm/postgresql';
import { expressionBuilder, type Expression } from 'kysely';
import { compiledOnce } from '../db/compiled-once.ts';
import { offline } from '../db/compile.ts';
import { db } from '../db/query-builder.ts';
import type { Tables } from '../schema/index.ts';
import { minutesWatched } from './minutes.ts';
import { regularEpisodesWatched } from './regular-episodes.ts';

/**
 * The window in which the user's show counts as completed: from the first air date of a watched regular
 * episode, until the first air date of an unwatched one. An episode without an air date counts as aired
 * ('-infinity'). Nulls for a movie. `user` and `title` are the row's (a column or a value).
 */
function completionWindow(user: Expression<string>, title: Expression<string>) {
  const eb = expressionBuilder<Tables, never>();
  const firstAired = (watched: boolean) =>
    eb
      .selectFrom('episode as ce')
      .select((s) => s.fn.min(s.fn.coalesce('ce.air_date', s.cast<string>(s.val('-infinity'), 'date'))).as('d'))
      .where('ce.title_id', '=', title)
      .where('ce.season_number', '>', 0)
      .where((s) => {
        const exists = s.exists(
          s
            .selectFrom('watch_history as cw')
            .select(s.lit(1).as('one'))
            .where('cw.user_id', '=', user)
            .whereRef('cw.title_id', '=', 'ce.title_id')
            .whereRef('cw.episode_id', '=', 'ce.id'),
        );
        return watched ? exists : s.not(exists);
      });
  return { from: firstAired(true), until: firstAired(false) };
}

/** The furthest regular episode the user watched of the title (by season and episode number); nulls for none. */
function furthestRegular(user: Expression<string>, title: Expression<string>) {
  const eb = expressionBuilder<Tables, never>();
  const furthest = (column: 'fe.season_number' | 'fe.episode_number') =>
    eb
      .selectFrom('watch_history as fw')
      .innerJoin('episode as fe', 'fe.id', 'fw.episode_id')
      .select(column)
      .where('fw.user_id', '=', user)
      .where('fw.title_id', '=', title)
      .where('fe.season_number', '>', 0)
      .orderBy('fe.season_number', 'desc')
      .orderBy('fe.episode_number', 'desc')
      .limit(1);
  return { season: furthest('fe.season_number'), episode: furthest('fe.episode_number') };
}

/** Recomputes, for every row of these titles (or only the user's), the completion window (completionWindow). */
export async function refreshCompletionWindows(tx: EntityManager, titleIds: readonly string[], userId?: string): Promise<void> {
  if (titleIds.length === 0) return;
  const fe = expressionBuilder<Tables & { f: Tables['user_title_figures'] }, 'f'>();
  const window = completionWindow(fe.ref('f.user_id'), fe.ref('f.title_id'));
  await db(tx)
    .updateTable('user_title_figures as f')
    .set({ completed_from: window.from, completed_until: window.until })
    .where((eb) => eb('f.title_id', '=', eb.fn.any(eb.val([...titleIds]))))
    .$if(userId !== undefined, (q) => q.where('f.user_id', '=', userId!))
    .execute();
}

/** Recomputes, for the user's rows of these titles, the furthest regular episode watched (furthestRegular). */
export async function refreshFurthestEpisodes(tx: EntityManager, titleIds: readonly string[], userId: string): Promise<void> {
  if (titleIds.length === 0) return;
  const fe = expressionBuilder<Tables & { f: Tables['user_title_figures'] }, 'f'>();
  const furthest = furthestRegular(fe.ref('f.user_id'), fe.ref('f.title_id'));
  await db(tx)
    .updateTable('user_title_figures as f')
    .set({ last_season: furthest.season, last_episode: furthest.episode })
    .where('f.user_id', '=', userId)
    .where((eb) => eb('f.title_id', '=', eb.fn.any(eb.val([...titleIds]))))
    .execute();
}

/**
 * The user's figures of these titles as they are now, in one statement: per title its kind, the row kept
 * (`kept_*` null when there is none), and the row its entries make (`watches` 0 when it has none): the
 * counts, the completion window and the furthest regular episode, which the write puts in the row whole.
 */
export async function titleFiguresNow(em: EntityManager, userId: string, titleIds: readonly string[]) {
  return (await db(em).executeQuery(titleFiguresOnce({ userId, titleIds: [...titleIds] }))).rows;
}

/** Its text built once (compiled-once.ts): building and compiling it cost about as much as running it. */
const titleFiguresOnce = compiledOnce(
  (p: { userId: string; titleIds: string[] }) => titleFiguresNowQuery(p.userId, p.titleIds),
  (p, value) => ({ userId: value(p.userId), titleIds: value(p.titleIds) }),
);

function titleFiguresNowQuery(userId: string, titleIds: string[]) {
  const te = expressionBuilder<Tables & { t: Tables['title'] }, 't'>();
  const user = te.val(userId);
  const window = completionWindow(user, te.ref('t.id'));
  const furthest = furthestRegular(user, te.ref('t.id'));
  return offline
    .selectFrom('title as t')
    .leftJoin('user_title_figures as k', (join) => join.onRef('k.title_id', '=', 't.id').on('k.user_id', '=', userId))
    .leftJoinLateral(
      (eb) =>
        eb
          .selectFrom('watch_history as w')
          .leftJoin('episode as e', 'e.id', 'w.episode_id')
          .select((eb) => [
            eb.cast<number>(eb.fn.countAll(), 'integer').as('watches'),
            eb.cast<number>(minutesWatched, 'integer').as('minutes'),
            eb.cast<number>(eb.fn.count('w.episode_id').distinct(), 'integer').as('episodes'),
            eb.cast<number>(regularEpisodesWatched, 'integer').as('regular_episodes'),
            eb.fn.max('w.watched_at').as('last_watched_at'),
          ])
          .where('w.user_id', '=', userId)
          .whereRef('w.title_id', '=', 't.id')
          .as('c'),
      (join) => join.onTrue(),
    )
    .select([
      't.id as title_id',
      't.type',
      't.is_anime',
      'k.watches as kept_watches',
      'k.minutes as kept_minutes',
      'k.episodes as kept_episodes',
      'c.watches',
      'c.minutes',
      'c.episodes',
      'c.regular_episodes',
      'c.last_watched_at',
      window.from.as('completed_from'),
      window.until.as('completed_until'),
      furthest.season.as('last_season'),
      furthest.episode.as('last_episode'),
    ])
    .where((eb) => eb('t.id', '=', eb.fn.any(eb.val(titleIds))));
}

