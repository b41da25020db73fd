// The service's statements as the bare-`pg` baselines send them: each built by the query builder its
// repository runs, compiled on the compile-only builder (`offline`, PostgreSQL's compiler alone), so the
// baseline sends the very text the service runs. `prepare`: named, as the service names it.
import { AliasNode, IdentifierNode, OperationNodeTransformer, type Compilable, type KyselyPlugin, type SelectQueryNode } from 'kysely';
import { resolveByMovieDbIdQuery } from '../src/core/catalog/resolve-repository.ts';
import { advisoryLocksQuery } from '../src/core/db/advisory-lock.ts';
import { offline } from '../src/core/db/compile.ts';
import { titleStatesLock } from '../src/core/figures/lock.ts';
import type { Sql } from '../src/core/db/sql.ts';
import { entryFields } from '../src/core/library/history-items.ts';
import { historyPageQuery, insertWatchesQuery, probeWatchesQuery, userHistoryLock, type NewWatchRow, type ProbedWatch } from '../src/core/library/history-repository.ts';
import { DEDUP_WINDOW_MS, type WatchInput } from '../src/core/library/history-write.ts';
import { decodeCursor, isBigintText, isTimestampText } from '../src/core/paging/cursor.ts';
import { claimLockQuery, readRecordQuery, recordResultQuery } from '../src/core/sync/idempotency-repository.ts';
import { titleDetailQuery, type TitleDetailQuery } from '../src/core/titles/repository.ts';
import { tokenQuery } from '../src/core/tokens/repository.ts';
import { tokenKey } from '../src/oauth/bearer.ts';

/** `q`'s text and parameters, as `query()` takes them and the baseline sends them. */
export function statementOf(q: Compilable<unknown>, prepare?: boolean): Sql {
  const c = q.compile();
  return { text: c.sql, params: [...c.parameters], ...(prepare ? { prepare } : {}) };
}

/** The one statement that verifies a bearer token, named as the service runs it (oauth/bearer.ts). */
export const tokenStatement = (token: string): Sql => statementOf(tokenQuery(tokenKey(token)), true);

/** Leaves out the selection aliased `alias` from the statement's outermost select. */
function withoutSelection(alias: string): KyselyPlugin {
  const transformer = new (class extends OperationNodeTransformer {
    protected override transformSelectQuery(node: SelectQueryNode): SelectQueryNode {
      return {
        ...node,
        selections: node.selections?.filter((s) => !(AliasNode.is(s.selection) && IdentifierNode.is(s.selection.alias) && s.selection.alias.name === alias)),
      };
    }
  })();
  return { transformQuery: ({ node }) => (node.kind === 'SelectQueryNode' ? transformer.transformNode(node) : node), transformResult: async ({ result }) => result };
}

/**
 * The title detail's statement, named. `featured: false`: without the featured lists, as the older
 * baseline (from before they were folded into this statement) measured it.
 */
export function titleDetailStatement(q: TitleDetailQuery, { featured = true }: { featured?: boolean } = {}): Sql {
  const built = titleDetailQuery(offline, q);
  return statementOf(featured ? built : built.withPlugin(withoutSelection('featured_lists')), true);
}

const isPosition = (p: unknown): p is [string, string] => Array.isArray(p) && p.length === 2 && isTimestampText(p[0]) && isBigintText(p[1]);

/** GET /me/history's statement for a page of `limit` after `cursor` (none: the first page), unfiltered; named. */
export function historyPageStatement(userId: string, limit: number, cursor: string | undefined): Sql {
  const after = cursor === undefined ? null : decodeCursor(cursor, {}, isPosition);
  return statementOf(historyPageQuery(offline, userId, { after, rows: limit + 1 }), true);
}

// A bulk sync batch's statements, in the order the service runs them (sync/bulk.ts with logWatches).

/** Text of the Idempotency-Key's lock (its one parameter: the lock name, sync/idempotency.ts's lockName). */
export const CLAIM_LOCK = claimLockQuery(offline, '').compile().sql;

const SAMPLE_KEY = { userId: '', clientId: '', operation: '', key: '' };
const NO_RESULTS = { results: [], inserted: 0, updated: 0, removed: 0, skipped: 0, invalid: 0, deferred: 0 };
/** Text of the key's record read (user, client, operation, key, the oldest record's time). */
export const READ_RECORD = readRecordQuery(offline, SAMPLE_KEY, new Date(0)).compile().sql;
/** Text of the result's record (user, client, operation, key, body hash, result JSON, time). */
export const RECORD_RESULT = recordResultQuery(offline, SAMPLE_KEY, '', NO_RESULTS, new Date(0)).compile().sql;
/** Text of the titles' resolution by movie DB id (one parameter: the refs as JSON). */
export const RESOLVE_BY_MOVIE_DB_ID = resolveByMovieDbIdQuery(offline, '[]').compile().sql;

export const lockUserHistoryStatement = (userId: string): Sql => statementOf(advisoryLocksQuery(offline, [userHistoryLock(userId), titleStatesLock(userId)]));

const probeOf = (watches: WatchInput[]) => watches.map((w, idx) => ({ idx, title_id: w.titleId, episode_id: w.episodeId, watched_at: w.watchedAt.toISOString() }));

/** The probe for duplicates of `watches`, which also reads what their entries show of the titles. */
export const probeWatchesStatement = (userId: string, watches: WatchInput[]): Sql => statementOf(probeWatchesQuery(offline, userId, probeOf(watches), DEDUP_WINDOW_MS / 1000));

/** The insert of `watches` (none a duplicate) with their change records, presented from the probe's rows. */
export function insertWatchesStatement(userId: string, watches: WatchInput[], probed: ProbedWatch[]): Sql {
  const shown = new Map(probed.map((p) => [p.idx, p]));
  const rows = watches.map((w, idx): NewWatchRow => {
    const p = shown.get(idx);
    if (!p) throw new Error(`title ${w.titleId} of a watch to log was not probed`);
    const at = w.watchedAt.toISOString();
    return {
      title_id: w.titleId,
      episode_id: w.episodeId,
      season_number: w.season,
      episode_number: w.episode,
      watched_at: at,
      runtime_minutes: w.runtimeMinutes,
      source: w.source,
      client_id: w.clientId,
      data: entryFields({ ...p, episode_id: w.episodeId, season_number: w.season, episode_number: w.episode, runtime_minutes: w.runtimeMinutes, position_at: at }),
    };
  });
  return statementOf(insertWatchesQuery(offline, userId, rows));
}
