// A title named by its row id or by a slug (`spirited-away-2001`): how a dialect that gives titles ids
// and slugs of the service's own (the Trakt-compatible facade) finds them again. A slug is the name
// without accents, lower case, every run of other characters a hyphen, then the year; two titles of one
// type with the same name and year share it, and the slug names the older row (the row id always tells
// them apart).
import type { EntityManager } from '@mikro-orm/postgresql';
import { toResolved, type ResolvedTitle } from './resolve.ts';
import { titlesByMatchName, titlesByRowIds } from './title-keys-repository.ts';

const MAX_ROW_ID = 9_007_199_254_740_991n;

/** The slug of a name and year. */
export function titleSlug(name: string, year: number | null): string {
  const words = name
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/&/g, ' and ')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
  const base = words || 'title';
  return year ? `${base}-${year}` : base;
}

/** Whether a text is a row id (a positive integer within JavaScript's exact range). */
export function isRowId(text: string): boolean {
  return /^[1-9][0-9]{0,15}$/.test(text) && BigInt(text) <= MAX_ROW_ID;
}

/** Titles by row id: one answer per id, in order, null where no title of that type has it. */
export async function titlesByRowId(em: EntityManager, type: 'movie' | 'show', ids: readonly string[]): Promise<(ResolvedTitle | null)[]> {
  const valid = [...new Set(ids.filter(isRowId))];
  if (valid.length === 0) return ids.map(() => null);
  const found = new Map((await titlesByRowIds(em, type, valid)).map((row) => [String(row.id), toResolved(row)]));
  return ids.map((id) => found.get(id) ?? null);
}

/** The title a slug names (of that type), or null. */
export async function titleBySlug(em: EntityManager, type: 'movie' | 'show', slug: string): Promise<ResolvedTitle | null> {
  if (!/^[a-z0-9]+(?:-[a-z0-9]+)*$/.test(slug) || slug.length > 300) return null;
  const dated = /^(.+)-(\d{4})$/.exec(slug);
  const tries: Array<[string, number | null]> = dated ? [[dated[1]!, Number(dated[2])], [slug, null]] : [[slug, null]];
  for (const [words, year] of tries) {
    const rows = await titlesByMatchName(em, type, words.replace(/-/g, ' '), year);
    const row = rows.find((r) => titleSlug(r.name, r.year) === slug || (year === null && titleSlug(r.name, null) === slug));
    if (row) return toResolved(row);
  }
  return null;
}
