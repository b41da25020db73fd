// Comparing a user's kept figures (src/core/figures/) with what rebuildUserFigures recomputes from the
// rows, with a diff a person can read: per table, the rows only one side has and the rows that differ,
// each named by its key.
import type { EntityManager } from '@mikro-orm/postgresql';
import { figureRows } from '../../src/core/figures/rebuild-repository.ts';
import { rebuildUserFigures } from '../../src/core/figures/rebuild.ts';

export type FigureRows = Awaited<ReturnType<typeof figureRows>>;

type Table = Exclude<keyof FigureRows, 'totals'>;

/** How each table's rows are told apart (its primary key without the user). */
const KEYS: { [T in Table]: (row: FigureRows[T][number]) => string } = {
  titles: (r) => `title ${r.title_id}`,
  days: (r) => `day ${r.day}`,
  genres: (r) => `${r.month} ${r.genre}`,
  runs: (r) => `run from ${r.first_day}`,
  yearTitles: (r) => `${r.year} title ${r.title_id}`,
  libraryCounts: (r) => `${r.list}/${r.category}/${r.scope}/${r.status}`,
};

const shown = (row: object) => JSON.stringify(Object.fromEntries(Object.entries(row).filter(([k]) => k !== 'user_id')));

/** One line per difference between two sets of figure rows (none: equal). */
export function figuresDiff(kept: FigureRows, rebuilt: FigureRows): string[] {
  const lines: string[] = [];
  // figureRows reads the totals as userFigures does: all 0 without a row.
  if (shown(kept.totals) !== shown(rebuilt.totals)) lines.push(`totals: kept ${shown(kept.totals)}, rows give ${shown(rebuilt.totals)}`);
  for (const table of Object.keys(KEYS) as Table[]) {
    const key = KEYS[table] as (row: object) => string;
    const a = new Map<string, object>(kept[table].map((r: object) => [key(r), r]));
    const b = new Map<string, object>(rebuilt[table].map((r: object) => [key(r), r]));
    const before = lines.length;
    for (const [k, row] of a) {
      const other = b.get(k);
      if (!other) lines.push(`${table}: ${k} kept ${shown(row)}, not in the rows`);
      else if (shown(row) !== shown(other)) lines.push(`${table}: ${k} kept ${shown(row)}, rows give ${shown(other)}`);
    }
    for (const [k, row] of b) if (!a.has(k)) lines.push(`${table}: ${k} missing, rows give ${shown(row)}`);
    // Same rows, another order: figureRows promises a stable order.
    if (lines.length === before && JSON.stringify(kept[table]) !== JSON.stringify(rebuilt[table])) lines.push(`${table}: same rows in another order`);
  }
  return lines;
}

/** The user's kept figures, then rebuilt from the rows: what differed (the figures are the rows' afterwards). */
export async function keptAgainstRebuilt(em: () => EntityManager, userId: string): Promise<{ diff: string[]; rows: FigureRows }> {
  const kept = await figureRows(em(), userId);
  await rebuildUserFigures(em(), userId);
  const rebuilt = await figureRows(em(), userId);
  return { diff: figuresDiff(kept, rebuilt), rows: rebuilt };
}

/** How many rows the figures hold (for a test's report): the totals count as one unless all 0. */
export const rowCount = (rows: FigureRows) =>
  Number(Object.values(rows.totals).some((n) => n !== 0)) + (Object.keys(KEYS) as Table[]).reduce((n, t) => n + rows[t].length, 0);
