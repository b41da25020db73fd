// Seasons and episodes of a show, with the user's watched state (history:read) and ratings (ratings:read)
// where the token may see them. Each read is one statement; a missing show, season or episode is 404.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Actor } from '../actor.ts';
import { query } from '../db/sql.ts';
import { notFound } from '../errors.ts';
import { toEpisodeState, toSeasonSummary, toShowRef, type EpisodeRow, type SeasonRow, type ShowRow } from './present.ts';
import { episodeDetailSql, seasonDetailSql, seasonListSql } from './queries.ts';
import type { EpisodeInput, SeasonInput } from './schemas.ts';
import { utcDay, userStateFor } from './user-state.ts';

async function showRow<R extends ShowRow>(em: EntityManager, sql: Parameters<typeof query>[1], movieDbId: number): Promise<R> {
  const [row] = await query<R>(em, sql);
  if (!row) throw notFound(`Show ${movieDbId}`);
  return row;
}

export async function seasonList(em: EntityManager, actor: Actor, showId: number, imageBaseUrl: string) {
  const row = await showRow<ShowRow & { seasons: SeasonRow[] }>(em, seasonListSql({ movieDbId: showId, today: utcDay(), state: userStateFor(actor) }), showId);
  return { show: toShowRef(row, imageBaseUrl), seasons: row.seasons.map((s) => toSeasonSummary(s, imageBaseUrl)) };
}

export async function seasonDetail(em: EntityManager, actor: Actor, input: SeasonInput, imageBaseUrl: string) {
  const state = userStateFor(actor);
  const sql = seasonDetailSql({ movieDbId: input.id, season: input.season, today: utcDay(), state });
  const row = await showRow<ShowRow & { season: SeasonRow | null; episodes: EpisodeRow[]; rating: number | null }>(em, sql, input.id);
  if (!row.season) throw notFound(`Season ${input.season} of show ${input.id}`);
  return {
    show: toShowRef(row, imageBaseUrl),
    season: { ...toSeasonSummary(row.season, imageBaseUrl), rating: row.rating },
    episodes: row.episodes.map((e) => toEpisodeState(e, imageBaseUrl, state.historyOf !== null)),
  };
}

export async function episodeDetail(em: EntityManager, actor: Actor, input: EpisodeInput, imageBaseUrl: string) {
  const state = userStateFor(actor);
  const sql = episodeDetailSql({ movieDbId: input.id, season: input.season, episode: input.episode, today: utcDay(), state });
  const row = await showRow<ShowRow & { episode: EpisodeRow | null; rating: number | null }>(em, sql, input.id);
  if (!row.episode) throw notFound(`Episode S${input.season}E${input.episode} of show ${input.id}`);
  return { show: toShowRef(row, imageBaseUrl), episode: { ...toEpisodeState(row.episode, imageBaseUrl, state.historyOf !== null), rating: row.rating } };
}
