// Reading the sources' loosely typed values into the bulk-sync fields: ids that may be numbers or digit
// strings, years that may be missing, dates written as days. A value that does not fit is left out
// (the item then names its title by what remains), never guessed.
import type { ImportTitleRef, SourceRow } from '../records.ts';

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The object under `key`, or an empty one. */
export const obj = (v: unknown, key?: string): Record<string, unknown> => {
  const o = key === undefined ? v : isRecord(v) ? v[key] : undefined;
  return isRecord(o) ? o : {};
};

/** A positive whole id, from a number or a string of digits (Simkl writes ids as strings). */
export function intId(v: unknown): number | undefined {
  const n = typeof v === 'number' ? v : typeof v === 'string' && /^\d{1,10}$/.test(v.trim()) ? Number(v.trim()) : NaN;
  return Number.isSafeInteger(n) && n >= 1 && n <= 2_147_483_647 ? n : undefined;
}

/** A whole number >= 0 (season and episode numbers). */
export function count(v: unknown): number | undefined {
  const n = typeof v === 'number' ? v : typeof v === 'string' && /^\d{1,6}$/.test(v.trim()) ? Number(v.trim()) : NaN;
  return Number.isSafeInteger(n) && n >= 0 ? n : undefined;
}

/** A film database id (`tt` and digits). */
export const filmDbId = (v: unknown): string | undefined => (typeof v === 'string' && /^tt\d{1,12}$/.test(v.trim()) ? v.trim() : undefined);

/** Non-empty text, exactly as written. */
export const text = (v: unknown): string | undefined => (typeof v === 'string' && v.trim() !== '' ? v : undefined);

/** A release year the catalog could hold. */
export function year(v: unknown): number | undefined {
  const n = typeof v === 'number' ? v : typeof v === 'string' && /^\d{4}$/.test(v.trim()) ? Number(v.trim()) : NaN;
  return Number.isInteger(n) && n >= 1800 && n < 3000 ? n : undefined;
}

/** A date-time as the source wrote it (the write path checks it), or undefined. */
export const dateTime = (v: unknown): string | undefined => (typeof v === 'string' && v.trim() !== '' ? v.trim() : undefined);

/**
 * A day (YYYY-MM-DD) as a date-time: noon UTC, the time that keeps the same calendar day in every time
 * zone from UTC-11 to UTC+11, since the source recorded a day and no time.
 */
export const dayAtNoon = (v: unknown): string | undefined => (typeof v === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(v.trim()) ? `${v.trim()}T12:00:00Z` : undefined);

/** The ref without its absent fields, so records compare and serialise without undefined keys. */
export function ref(r: ImportTitleRef): ImportTitleRef {
  return Object.fromEntries(Object.entries(r).filter(([, v]) => v !== undefined && v !== null)) as ImportTitleRef;
}

/** Drops undefined fields from an item. */
export function defined<T extends object>(item: T): T {
  return Object.fromEntries(Object.entries(item).filter(([, v]) => v !== undefined)) as T;
}

/** How the unmatched download names a title: `Name (Year)`, then the source's ids. */
export function label(title: string | undefined, yr: number | undefined, extra: (string | undefined)[] = []): string {
  const head = title === undefined ? '(no title)' : yr === undefined ? title : `${title} (${yr})`;
  return [head, ...extra.filter((e): e is string => !!e)].join(' ');
}

export const at = (file: string, row: number, lbl: string): SourceRow => ({ file, row, label: lbl });

/** The episode as `S01E02`, a season as `S01`. */
export const episodeCode = (season: number | undefined, episode: number | undefined): string | undefined =>
  season === undefined ? (episode === undefined ? undefined : `E${episode}`) : `S${String(season).padStart(2, '0')}${episode === undefined ? '' : `E${String(episode).padStart(2, '0')}`}`;
