// Imports catalog sources into the title, season and episode tables. Items are normalised, collected into
// batches and written with one multi-row upsert per table per batch (see repository.ts), each batch in its own
// short transaction so a long import never holds locks for long and readers see progress. Re-running an
// import updates rows in place: titles are keyed by (type, movie_db_id), seasons by (title, number),
// episodes by (title, season, number). A re-import never deletes: seasons or episodes a source no longer
// lists stay, because users' history, ratings and lists may point at them.
//
// Inside a batch's transaction only that transaction's EntityManager is used: on the embedded database a
// query on any other connection while a transaction is open waits forever.
import type { EntityManager } from '../../db/orm.ts';
import {
  isPatch,
  normalizePatch,
  normalizeTitle,
  titleKey,
  type EpisodeRow,
  type NormalizedTitle,
  type PatchRow,
  type SeasonRow,
} from './normalize.ts';
import { refreshRecommendations } from '../recommendations.ts';
import { insertOrPatchTitles, patchTitles, upsertEpisodes, upsertSeasons, upsertTitles, vacuumCatalog } from './repository.ts';
import type { CatalogSource, ImportProgress, ImportResult } from './types.ts';

export type ImportOptions = {
  /** Titles and patches per batch (one transaction). */
  batchSize?: number;
  /** Season or episode rows per statement; a batch of long-running shows is split into several. */
  rowsPerStatement?: number;
};

const DEFAULT_BATCH_SIZE = 1000;
const DEFAULT_ROWS_PER_STATEMENT = 5000;

type Batch = {
  /** Authoritative titles, one per key (a later duplicate replaces an earlier one). */
  titles: Map<string, NormalizedTitle>;
  /** Titles to insert if missing, else to patch (onExisting 'patch'). */
  insertOrPatch: Map<string, NormalizedTitle>;
  patches: Map<string, PatchRow>;
  childRows: number;
};

function emptyBatch(): Batch {
  return { titles: new Map(), insertOrPatch: new Map(), patches: new Map(), childRows: 0 };
}

function mergePatch(a: PatchRow, b: PatchRow): PatchRow {
  return {
    ...a,
    is_anime: b.is_anime ?? a.is_anime,
    anime_db_id: b.anime_db_id ?? a.anime_db_id,
    external_ids: { ...a.external_ids, ...b.external_ids },
  };
}

function chunks<T>(rows: T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < rows.length; i += size) out.push(rows.slice(i, i + size));
  return out;
}

async function writeBatch(em: EntityManager, batch: Batch, rowsPerStatement: number, result: ImportResult): Promise<void> {
  const counts = { titles: 0, seasons: 0, episodes: 0, patched: 0, skipped: 0 };
  await em.transactional(async (tx) => {
    // Titles whose seasons and episodes this batch writes, by key -> title id.
    const withChildren: Array<{ title: NormalizedTitle; id: number }> = [];
    const upsert = async (write: typeof upsertTitles, items: Map<string, NormalizedTitle>, mode: 'update' | 'patch') => {
      if (items.size === 0) return;
      const rows = await write(tx, [...items.values()].map((t) => t.row));
      for (const r of rows) {
        const title = items.get(titleKey(r.type, r.movie_db_id));
        if (!title) continue;
        if (mode === 'patch' && !r.inserted) {
          counts.patched++;
          continue;
        }
        counts.titles++;
        if (title.seasons) withChildren.push({ title, id: Number(r.id) });
      }
    };
    await upsert(upsertTitles, batch.titles, 'update');
    await upsert(insertOrPatchTitles, batch.insertOrPatch, 'patch');

    const seasons: Array<SeasonRow & { title_id: number }> = [];
    const episodes: Array<EpisodeRow & { title_id: number }> = [];
    for (const { title, id } of withChildren) {
      for (const s of title.seasons ?? []) seasons.push({ ...s, title_id: id });
      for (const e of title.episodes) episodes.push({ ...e, title_id: id });
    }
    for (const part of chunks(seasons, rowsPerStatement)) {
      await upsertSeasons(tx, part);
      counts.seasons += part.length;
    }
    for (const part of chunks(episodes, rowsPerStatement)) {
      await upsertEpisodes(tx, part);
      counts.episodes += part.length;
    }

    if (batch.patches.size > 0) {
      const rows = await patchTitles(tx, [...batch.patches.values()]);
      counts.patched += rows.length;
      // A patch for a title that does not exist (yet) is skipped, not an error.
      counts.skipped += batch.patches.size - rows.length;
    }
  });
  // Counted only once the batch has committed.
  result.titles += counts.titles;
  result.seasons += counts.seasons;
  result.episodes += counts.episodes;
  result.patched += counts.patched;
  result.skipped += counts.skipped;
}

/** Imports one source (batches of their own transactions); no recommendations, no vacuum. */
export async function importSource(
  em: EntityManager,
  source: CatalogSource,
  onProgress?: ImportProgress,
  options: ImportOptions = {},
): Promise<ImportResult> {
  const batchSize = options.batchSize ?? DEFAULT_BATCH_SIZE;
  const rowsPerStatement = options.rowsPerStatement ?? DEFAULT_ROWS_PER_STATEMENT;
  const result: ImportResult = { source: source.name, titles: 0, seasons: 0, episodes: 0, patched: 0, skipped: 0 };
  const total = await source.estimate?.();
  let done = 0;
  let batch = emptyBatch();
  onProgress?.(0, total, source.name);

  const flush = async () => {
    if (batch.titles.size + batch.insertOrPatch.size + batch.patches.size > 0) {
      await writeBatch(em, batch, rowsPerStatement, result);
    }
    batch = emptyBatch();
    onProgress?.(done, total, source.name);
  };

  for await (const item of source.items()) {
    done++;
    if (isPatch(item)) {
      const p = normalizePatch(item);
      if (!p) {
        result.skipped++;
        continue;
      }
      const key = titleKey(p.type, p.movie_db_id);
      const before = batch.patches.get(key);
      batch.patches.set(key, before ? mergePatch(before, p) : p);
    } else {
      const t = normalizeTitle(item);
      if (!t) {
        result.skipped++;
        continue;
      }
      const target = t.mode === 'patch' ? batch.insertOrPatch : batch.titles;
      // The same title twice in one batch: the later wins (one statement cannot touch a row twice).
      const before = target.get(t.key);
      if (before) {
        result.skipped++;
        batch.childRows -= (before.seasons?.length ?? 0) + before.episodes.length;
      }
      target.set(t.key, t);
      batch.childRows += (t.seasons?.length ?? 0) + t.episodes.length;
    }
    const items = batch.titles.size + batch.insertOrPatch.size + batch.patches.size;
    if (items >= batchSize || batch.childRows >= rowsPerStatement * 4) await flush();
  }
  await flush();
  result.skipped += source.skipped?.() ?? 0;
  // Estimates are estimates: report the final count as the total so a progress bar ends full.
  onProgress?.(done, done, source.name);
  return result;
}

/**
 * Imports each source in turn; one result per source, in the same order. Call it outside a transaction:
 * it makes its own per batch. At the end it recomputes every title's recommendations (a new title or a
 * changed popularity can change any title's list) and vacuums.
 */
export async function importCatalog(
  em: EntityManager,
  sources: CatalogSource[],
  onProgress?: ImportProgress,
  options: ImportOptions = {},
): Promise<ImportResult[]> {
  const results: ImportResult[] = [];
  for (const source of sources) results.push(await importSource(em, source, onProgress, options));
  await refreshRecommendations(em);
  // Bulk inserts leave the GIN indexes' pending lists long (every search would scan them) and the
  // planner without statistics (it then scans the whole table). (figures: docs/performance.md,
  // 'Catalog search after a bulk import')
  await vacuumCatalog(em);
  return results;
}
