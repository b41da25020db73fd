// Logging a watch through the history API: a movie, one episode, every aired episode of a season, or
// every aired episode of a show's regular seasons (season 0, specials, only when named), one entry each,
// all at the same time. Writes go through logWatches (deduplication, change feed, show statuses).
import type { EntityManager } from '@mikro-orm/postgresql';
import { resolveOrFetchTitle } from '../catalog/fetch/registry.ts';
import { resolveEpisodes } from '../catalog/resolve.ts';
import { transaction } from '../db/transaction.ts';
import { invalidRequest, notFound } from '../errors.ts';
import { historyItemsByIds, type HistoryItem } from './history-items.ts';
import { showEpisodes } from './history-repository.ts';
import { logWatches, type WatchInput } from './history-write.ts';

export type LogTarget = { type: 'movie' | 'show'; movieDbId: number; season?: number | undefined; episode?: number | undefined; watchedAt: Date };

export type LogOutcome = { inserted: number; skipped: number; items: (HistoryItem & { status: 'inserted' | 'skipped' })[] };

export async function logTitleWatch(em: EntityManager, userId: string, clientId: string, target: LogTarget): Promise<LogOutcome> {
  if (target.type === 'movie' && (target.season !== undefined || target.episode !== undefined)) throw invalidRequest('season and episode are only for shows');
  if (target.episode !== undefined && target.season === undefined) throw invalidRequest('episode needs season');
  // Before the transaction: a title the catalog lacks may be fetched from the metadata provider.
  const title = await resolveOrFetchTitle(em, { type: target.type, movieDbId: target.movieDbId });
  if (!title) throw notFound(`The ${target.type} ${target.movieDbId}`);
  const base = { titleId: title.id, watchedAt: target.watchedAt, source: 'api' as const, clientId };

  let watches: WatchInput[];
  if (target.type === 'movie') {
    watches = [{ ...base, episodeId: null, season: null, episode: null, runtimeMinutes: title.runtimeMinutes }];
  } else if (target.episode !== undefined) {
    const [ep] = await resolveEpisodes(em, [{ titleId: title.id, season: target.season, episode: target.episode }]);
    if (!ep) throw notFound(`Episode S${target.season}E${target.episode} of show ${target.movieDbId}`);
    watches = [{ ...base, episodeId: ep.id, season: ep.season, episode: ep.episode, runtimeMinutes: ep.runtimeMinutes ?? title.runtimeMinutes }];
  } else {
    const episodes = await showEpisodes(em, title.id, target.season ?? null);
    if (target.season !== undefined && episodes.length === 0) throw notFound(`Season ${target.season} of show ${target.movieDbId}`);
    watches = episodes
      .filter((e) => e.aired)
      .map((e) => ({ ...base, episodeId: String(e.id), season: e.season_number, episode: e.episode_number, runtimeMinutes: e.runtime_minutes ?? title.runtimeMinutes }));
  }

  return transaction(em, async (tx) => {
    const results = await logWatches(tx, userId, watches);
    // A new entry comes back as its change record shows it; only skipped ones (existing entries) are read.
    const byId = new Map(results.flatMap((r) => (r.entry ? [[r.id, r.entry] as const] : [])));
    const existing = [...new Set(results.filter((r) => !byId.has(r.id)).map((r) => r.id))];
    for (const i of await historyItemsByIds(tx, userId, existing)) byId.set(String(i.id), i);
    const inserted = results.filter((r) => r.status === 'inserted').length;
    return { inserted, skipped: results.length - inserted, items: results.map((r) => ({ ...byId.get(r.id)!, status: r.status })) };
  });
}
