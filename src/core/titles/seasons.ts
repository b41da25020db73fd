// Seasons and episodes of a show, with the user's watched state (history:read) and ratings (ratings:read)
// where the token may see them. Each read is one statement; a missing show, season or episode is 404.
// A show the catalog lacks is fetched from the metadata provider, when one is configured, and read again.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Actor } from '../actor.ts';
import { readFetching } from '../catalog/fetch/registry.ts';
import { notFound } from '../errors.ts';
import { toEpisodeState, toSeasonSummary, toShowRef } from './present.ts';
import { findEpisodeDetail, findSeasonDetail, findSeasonList, type ShowQuery } from './seasons-repository.ts';
import type { EpisodeInput, SeasonInput } from './schemas.ts';
import { utcDay, userStateFor } from './user-state.ts';

function showQuery(actor: Actor, movieDbId: number): ShowQuery {
  const { historyOf, ratingsOf } = userStateFor(actor);
  return { movieDbId, today: utcDay(), historyOf, ratingsOf };
}

/** The read's row; when the show is missing and a provider is configured, the show fetched and read again. */
async function found<R>(em: EntityManager, movieDbId: number, read: () => Promise<R | undefined>): Promise<R> {
  const row = await readFetching(em, { type: 'show', movieDbId }, read);
  if (!row) throw notFound(`Show ${movieDbId}`);
  return row;
}

export async function seasonList(em: EntityManager, actor: Actor, showId: number, imageBaseUrl: string) {
  const row = await found(em, showId, () => findSeasonList(em, showQuery(actor, showId)));
  return { show: toShowRef(row, imageBaseUrl), seasons: row.seasons.map((s) => toSeasonSummary(s, imageBaseUrl)) };
}

export async function seasonDetail(em: EntityManager, actor: Actor, input: SeasonInput, imageBaseUrl: string) {
  const q = showQuery(actor, input.id);
  const row = await found(em, input.id, () => findSeasonDetail(em, { ...q, season: input.season }));
  const season = row.season_row;
  if (!season) throw notFound(`Season ${input.season} of show ${input.id}`);
  return {
    show: toShowRef(row, imageBaseUrl),
    season: { ...toSeasonSummary(season, imageBaseUrl), rating: row.rating ?? null },
    episodes: row.episodes.map((e) => toEpisodeState(e, imageBaseUrl, q.historyOf !== null)),
  };
}

export async function episodeDetail(em: EntityManager, actor: Actor, input: EpisodeInput, imageBaseUrl: string) {
  const q = showQuery(actor, input.id);
  const row = await found(em, input.id, () => findEpisodeDetail(em, { ...q, season: input.season, episode: input.episode }));
  const episode = row.episode_row;
  if (!episode) throw notFound(`Episode S${input.season}E${input.episode} of show ${input.id}`);
  return { show: toShowRef(row, imageBaseUrl), episode: { ...toEpisodeState(episode, imageBaseUrl, q.historyOf !== null), rating: row.rating ?? null } };
}
