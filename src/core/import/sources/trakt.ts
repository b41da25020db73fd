// Trakt's full export: the JSON files of its data export (or of the community backup tools), uploaded as
// the ZIP that holds them or as one of those files alone. Members are known by their file name, in any
// folder of the archive:
//   watched-history.json            every play (`watched_at`), movies and episodes  -> history
//   ratings-{movies,shows,seasons,episodes}.json  `rating` 1-10, `rated_at`         -> ratings (same scale)
//   watchlist-*.json / watchlist.json  movies and shows (a season or episode: its show) -> watchlist
//   favorites-*.json                 movies and shows                                -> favourites
//   lists-lists.json + lists-<slug>.json  custom lists and their items                -> lists
// Everything else (watched-movies/-shows summaries, which repeat the history; collection; comments;
// user settings) is not read. One JSON file alone is read element by element, each known by its shape
// (`watched_at`: a play; `rating`: a rating; `listed_at`: a watchlist entry); a custom list needs the ZIP,
// since its items and its name are in two files. Trakt's ids map to ours: tmdb -> movie_db_id, tvdb ->
// tv_db_id (shows), imdb -> film_db_id; an episode's own ids are not title ids and are not used.
import type { HistoryItem, RatingItem } from '../../sync/schemas.ts';
import { ImportFileError, type ImportRecord, type ImportTitleRef, type Importer, type SourceRow } from '../records.ts';
import { at, count, dateTime, defined, episodeCode, filmDbId, intId, label, obj, ref, text, year } from './fields.ts';
import { jsonElements } from './json-elements.ts';
import { sniff } from './sniff.ts';
import { zipMembers } from './zip.ts';

type Element = Record<string, unknown>;
type Kind = 'history' | 'ratings' | 'watchlist' | 'favourites' | 'lists' | { list: string };

/** Which export file a member is, by its name without folders; null for the files not imported. */
function route(basename: string): Kind | null {
  const name = basename.toLowerCase();
  if (name === 'watched-history.json' || name === 'history.json') return 'history';
  if (/^ratings-(movies|shows|seasons|episodes)\.json$/.test(name)) return 'ratings';
  if (/^watchlist(-[a-z]+)?\.json$/.test(name)) return 'watchlist';
  if (/^favorites(-[a-z]+)?\.json$/.test(name)) return 'favourites';
  if (name === 'lists-lists.json') return 'lists';
  const list = /^lists-(.+)\.json$/.exec(basename);
  return list ? { list: list[1]! } : null;
}

const ids = (o: Element) => obj(o, 'ids');

/** A movie or show object as our title fields (no `type`: history items carry none). */
function titleFields(o: Element, type: 'movie' | 'show'): ImportTitleRef {
  const i = ids(o);
  return ref({
    movie_db_id: intId(i.tmdb),
    tv_db_id: type === 'show' ? intId(i.tvdb) : undefined,
    film_db_id: filmDbId(i.imdb),
    title: text(o.title),
    year: year(o.year),
  });
}

function describe(o: Element, code?: string): string {
  const i = ids(o);
  const idText = [['trakt', i.trakt], ['tmdb', i.tmdb], ['imdb', i.imdb], ['tvdb', i.tvdb]]
    .filter(([, v]) => typeof v === 'number' || typeof v === 'string')
    .map(([k, v]) => `${k}:${String(v)}`);
  return label(text(o.title), year(o.year), [code, ...idText]);
}

/** The title an entry is about: its movie, or the show of a show, season or episode entry. */
function entryTitle(el: Element): { type: 'movie' | 'show'; o: Element; code?: string } | null {
  switch (el.type) {
    case 'movie':
      return { type: 'movie', o: obj(el, 'movie') };
    case 'show':
      return { type: 'show', o: obj(el, 'show') };
    case 'season':
      return { type: 'show', o: obj(el, 'show'), code: episodeCode(count(obj(el, 'season').number), undefined) };
    case 'episode': {
      const e = obj(el, 'episode');
      return { type: 'show', o: obj(el, 'show'), code: episodeCode(count(e.season), count(e.number)) };
    }
    default:
      return null; // people, and anything newer than this reader
  }
}

function history(el: Element, file: string, row: number): ImportRecord | null {
  const t = entryTitle(el);
  if (!t || (el.type !== 'movie' && el.type !== 'episode')) return null;
  const e = obj(el, 'episode');
  // A play without its date is passed on as such: the write path reports it invalid, by row.
  const item: HistoryItem = defined({
    ...titleFields(t.o, t.type),
    watched_at: dateTime(el.watched_at) ?? '',
    ...(el.type === 'episode' ? { season: count(e.season), episode: count(e.number), episode_title: text(e.title) } : {}),
  });
  return { kind: 'history', item, at: at(file, row, describe(t.o, t.code)) };
}

function rating(el: Element, file: string, row: number): ImportRecord | null {
  const t = entryTitle(el);
  if (!t) return null;
  const e = obj(el, 'episode');
  // Trakt rates 1 to 10, as we do: the number passes unchanged (the write path refuses any other).
  const item: RatingItem = defined({
    type: t.type,
    ...titleFields(t.o, t.type),
    ...(el.type === 'season' ? { season: count(obj(el, 'season').number) } : {}),
    ...(el.type === 'episode' ? { season: count(e.season), episode: count(e.number) } : {}),
    rating: typeof el.rating === 'number' ? el.rating : (intId(el.rating) ?? null),
    rated_at: dateTime(el.rated_at),
  });
  return { kind: 'rating', item, at: at(file, row, describe(t.o, t.code)) };
}

function titled(el: Element): { title: ImportTitleRef; describe: string } | null {
  const t = entryTitle(el);
  return t ? { title: { type: t.type, ...titleFields(t.o, t.type) }, describe: describe(t.o, t.code) } : null;
}

function watchlist(el: Element, file: string, row: number): ImportRecord | null {
  const t = titled(el);
  return t ? { kind: 'watchlist', item: t.title, at: at(file, row, t.describe) } : null;
}

function favourite(el: Element, file: string, row: number): ImportRecord | null {
  const t = titled(el);
  return t ? { kind: 'favourite', title: t.title, at: at(file, row, t.describe) } : null;
}

type ListMeta = { name: string; description: string | null; at: SourceRow };
type ListItems = { file: string; items: Extract<ImportRecord, { kind: 'list' }>['items'] };

const basename = (path: string) => path.slice(path.lastIndexOf('/') + 1);

async function* fromZip(chunks: AsyncIterable<Uint8Array>): AsyncGenerator<ImportRecord> {
  let known = 0;
  // A custom list's name (lists-lists.json) and its items (lists-<slug>.json) are two members in either
  // order: whichever comes first waits for the other, and what is still waiting at the end goes out as is.
  const metas = new Map<string, ListMeta>();
  const waiting = new Map<string, ListItems>();
  const emitted = new Set<string>();
  const list = (slug: string, meta: ListMeta | undefined, items: ListItems | undefined): ImportRecord => {
    emitted.add(slug);
    return {
      kind: 'list',
      name: meta?.name ?? slug,
      description: meta?.description ?? null,
      items: items?.items ?? [],
      at: meta?.at ?? at(items?.file ?? `lists-${slug}.json`, 1, slug),
    };
  };

  for await (const member of zipMembers(chunks)) {
    const file = basename(member.name);
    const kind = file ? route(file) : null;
    if (!kind) continue;
    known++;
    const elements = jsonElements(member.body, { where: file, shapes: ['array'] });
    if (typeof kind === 'object') {
      const items: ListItems = { file, items: [] };
      for await (const { index, value } of elements) {
        const t = titled(obj(value));
        if (t) items.items.push({ title: t.title, note: text(obj(value).notes) ?? null, at: at(file, index + 1, t.describe) });
      }
      const meta = metas.get(kind.list);
      if (meta) yield list(kind.list, meta, items);
      else waiting.set(kind.list, items);
      continue;
    }
    for await (const { index, value } of elements) {
      const el = obj(value);
      const row = index + 1;
      if (kind === 'lists') {
        const slug = text(ids(el).slug) ?? text(el.name);
        if (!slug || emitted.has(slug) || metas.has(slug)) continue;
        const meta = { name: text(el.name) ?? slug, description: text(el.description) ?? null, at: at(file, row, text(el.name) ?? slug) };
        metas.set(slug, meta);
        const items = waiting.get(slug);
        if (items) {
          waiting.delete(slug);
          yield list(slug, meta, items);
        }
        continue;
      }
      const record = kind === 'history' ? history(el, file, row) : kind === 'ratings' ? rating(el, file, row) : kind === 'watchlist' ? watchlist(el, file, row) : favourite(el, file, row);
      if (record) yield record;
    }
  }
  if (known === 0) throw new ImportFileError('the ZIP archive holds none of the Trakt export\'s files (watched-history.json, ratings-*.json, watchlist-*.json, lists-*.json)');
  for (const [slug, items] of waiting) yield list(slug, metas.get(slug), items);
  // Lists with no items file: the list itself, empty.
  for (const [slug, meta] of metas) if (!emitted.has(slug)) yield list(slug, meta, undefined);
}

/** One export file alone: each element by its shape. */
async function* fromJson(chunks: AsyncIterable<Uint8Array>): AsyncGenerator<ImportRecord> {
  let elements = 0;
  let recognised = 0;
  for await (const { index, value } of jsonElements(chunks, { where: 'the file', shapes: ['array'] })) {
    elements++;
    const el = obj(value);
    const row = index + 1;
    let record: ImportRecord | null = null;
    if ('watched_at' in el) record = history(el, 'watched-history.json', row);
    else if ('rating' in el) record = rating(el, typeof el.type === 'string' ? `ratings-${el.type}s.json` : 'ratings.json', row);
    else if ('listed_at' in el) record = watchlist(el, 'watchlist.json', row);
    if (!record) continue;
    recognised++;
    yield record;
  }
  if (elements > 0 && recognised === 0) {
    throw new ImportFileError('the file is not one of the Trakt export\'s history, ratings or watchlist files: upload the whole export ZIP (custom lists need it)');
  }
}

export const traktImporter: Importer = async function* (file) {
  const { kind, chunks } = await sniff(file);
  if (kind === 'zip') yield* fromZip(chunks);
  else if (kind === 'json') yield* fromJson(chunks);
  else throw new ImportFileError('not a Trakt export: upload the export ZIP, or one of its JSON files (e.g. watched-history.json)');
};
