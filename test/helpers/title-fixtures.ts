// User state for the title, season and calendar tests, written through the core write paths (logWatches,
// setRating) or, for favourites and show statuses (whose write path belongs to another module), by SQL
// into user_title_state.
import { resolveEpisodes, resolveTitles } from '../../src/core/catalog/resolve.ts';
import { query } from '../../src/core/db/sql.ts';
import { transaction } from '../../src/core/db/transaction.ts';
import { logWatches } from '../../src/core/library/history-write.ts';
import { setRating, type RatingScope } from '../../src/core/library/ratings-write.ts';
import type { TestApp } from './app.ts';

export type TitleKey = { type: 'movie' | 'show'; movieDbId: number };

const em = (app: TestApp) => app.db.orm.em.fork();

export async function titleId(app: TestApp, t: TitleKey): Promise<string> {
  const [found] = await resolveTitles(em(app), [{ type: t.type, movieDbId: t.movieDbId }]);
  if (!found) throw new Error(`no ${t.type} ${t.movieDbId} in the test catalog`);
  return found.id;
}

/** Logs one watch of a movie, or of an episode when season and episode are given. */
export async function watch(app: TestApp, userId: string, t: TitleKey, at: Date, season?: number, episode?: number): Promise<string> {
  const id = await titleId(app, t);
  let episodeId: string | null = null;
  if (season !== undefined) {
    const [ep] = await resolveEpisodes(em(app), [{ titleId: id, season, episode }]);
    if (!ep) throw new Error(`no S${season}E${episode} in show ${t.movieDbId}`);
    episodeId = ep.id;
  }
  const [result] = await transaction(em(app), (tx) =>
    logWatches(tx, userId, [{ titleId: id, episodeId, season: season ?? null, episode: episode ?? null, watchedAt: at, runtimeMinutes: null, source: 'api', clientId: null }]),
  );
  return result!.id;
}

export async function rate(app: TestApp, userId: string, t: TitleKey, rating: number, scope: RatingScope, season: number | null = null, episode: number | null = null): Promise<void> {
  const id = await titleId(app, t);
  await transaction(em(app), (tx) => setRating(tx, userId, { titleId: id, scope, season, episode }, rating));
}

export async function setTitleState(app: TestApp, userId: string, t: TitleKey, state: { favourite?: boolean; status?: string | null }): Promise<void> {
  const id = await titleId(app, t);
  await query(em(app), {
    text: `insert into user_title_state (user_id, title_id, is_favourite, favourited_at, show_status, show_status_set_by, show_status_at)
      values ($1, $2, $3, case when $3 then now() end, $4, case when $4::text is not null then 'user' end, case when $4::text is not null then now() end)
      on conflict (user_id, title_id) do update set is_favourite = excluded.is_favourite, favourited_at = excluded.favourited_at,
        show_status = excluded.show_status, show_status_set_by = excluded.show_status_set_by, show_status_at = excluded.show_status_at,
        updated_at = now()`,
    params: [userId, id, state.favourite ?? false, state.status ?? null],
  });
}

export async function sql<T>(app: TestApp, text: string, params: unknown[] = []): Promise<T[]> {
  return query<T>(em(app), { text, params });
}
