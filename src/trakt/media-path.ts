// The titles and numbers media paths name: `/movies/:id`, `/shows/:id` (a Trakt id, a slug or an IMDb
// id: titleOfPathId), `/seasons/:season`, `/episodes/:episode`. What names nothing is 404, as on Trakt.
import { notFound } from '../core/errors.ts';
import type { ResolvedTitle } from '../core/catalog/resolve.ts';
import { titleOfPathId, type TitleType } from './ids.ts';
import type { TraktCall } from './route.ts';

export const titleLabel = (type: TitleType) => (type === 'movie' ? 'Movie' : 'Show');

/** The title `:id` names, or 404. */
export async function pathTitle(call: Pick<TraktCall, 'em' | 'params'>, type: TitleType): Promise<ResolvedTitle> {
  const title = await titleOfPathId(call.em, type, call.params.id!);
  if (!title) throw notFound(`${titleLabel(type)} ${call.params.id}`);
  return title;
}

/** A season or episode number from the path; text no catalog row can have as its number is not found. */
export function pathNumber(text: string | undefined, what: string): number {
  if (!text || !/^\d{1,6}$/.test(text)) throw notFound(`${what} ${text}`);
  return Number(text);
}
