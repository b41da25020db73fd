// Simkl's JSON backup: one object with `movies`, `shows` and `anime` arrays (uploaded as the .json file,
// or a ZIP holding it). Each entry holds its title (`movie` or `show`, or the entry itself: `title`,
// `year`, `ids` {simkl, imdb, tmdb, tvdb, mal, anidb, ...}, ids as numbers or digit strings), `status`,
// `last_watched_at`, `user_rating` (1-10, our scale) with `user_rated_at`, and for shows and anime
// `seasons: [{number, episodes: [{number, watched_at}]}]` (anime may list `episodes` alone: absolute
// numbers). What maps to what:
//   ids          tmdb -> movie_db_id, tvdb -> tv_db_id (shows), imdb -> film_db_id, mal -> anime_db_id
//   episodes     one watch each, at its `watched_at` (else the entry's `last_watched_at`; with neither,
//                not imported). Anime: season 1, or no season, is sent as the absolute episode number
//                (anime sources count episodes across seasons; the catalog resolves it); other seasons
//                and season 0 (specials) by season and number. Shows: by season and number.
//   movies       `completed` with a `last_watched_at`: one watch then
//   status       watching -> watching, hold -> paused, completed -> completed, dropped -> dropped (shows);
//                completed -> completed (movies: their only statuses are planned and completed);
//                plantowatch -> the watchlist, and planned; notinteresting -> nothing (we have no such
//                state, and "dropped" would say the user started it)
//   user_rating  the title's rating (1-10 unchanged)
// An anime with `anime_type` "movie" is a movie.
import type { HistoryItem } from '../../sync/schemas.ts';
import type { ShowStatus } from '../../library/library-items.ts';
import { ImportFileError, type ImportRecord, type ImportTitleRef, type Importer } from '../records.ts';
import { at, count, dateTime, defined, episodeCode, filmDbId, intId, label, obj, ref, text, year } from './fields.ts';
import { jsonElements } from './json-elements.ts';
import { sniff } from './sniff.ts';
import { zipMembers } from './zip.ts';

const ARRAYS = ['movies', 'shows', 'anime'] as const;
type ArrayName = (typeof ARRAYS)[number];

const SIMKL_STATUSES: Record<string, { show?: ShowStatus; movie?: ShowStatus; watchlist?: true }> = {
  watching: { show: 'watching' },
  hold: { show: 'paused' },
  completed: { show: 'completed', movie: 'completed' },
  dropped: { show: 'dropped' },
  plantowatch: { show: 'planned', movie: 'planned', watchlist: true },
  notinteresting: {},
};

type Entry = Record<string, unknown>;

function entryRecords(array: ArrayName, entry: Entry, file: string, row: number): ImportRecord[] {
  const o = obj(entry.movie ?? entry.show ?? entry.anime ?? entry);
  const ids = obj(o, 'ids');
  const isAnime = array === 'anime';
  const type = array === 'movies' || (isAnime && entry.anime_type === 'movie') ? 'movie' : 'show';
  const fields = ref({
    movie_db_id: intId(ids.tmdb),
    tv_db_id: type === 'show' ? intId(ids.tvdb) : undefined,
    film_db_id: filmDbId(ids.imdb),
    anime_db_id: intId(ids.mal),
    title: text(o.title),
    year: year(o.year),
  });
  const titleRef: ImportTitleRef = { type, ...fields };
  const idText = ['simkl', 'tmdb', 'imdb', 'tvdb', 'mal', 'anidb'].flatMap((k) => (ids[k] === undefined || ids[k] === null ? [] : [`${k}:${String(ids[k])}`]));
  const describe = (code?: string) => label(text(o.title), year(o.year), [code, ...idText]);
  const where = at(file, row, describe());
  const lastWatched = dateTime(entry.last_watched_at);
  const status = typeof entry.status === 'string' ? SIMKL_STATUSES[entry.status] : undefined;
  const records: ImportRecord[] = [];

  if (type === 'movie') {
    if (entry.status === 'completed' && lastWatched) records.push({ kind: 'history', item: { ...fields, watched_at: lastWatched }, at: where });
  } else {
    const watch = (season: number | undefined, episode: number | undefined, watchedAt: unknown) => {
      const when = dateTime(watchedAt) ?? lastWatched;
      if (!when || episode === undefined) return;
      const item: HistoryItem = defined({ ...fields, season, episode, watched_at: when });
      records.push({ kind: 'history', item, at: at(file, row, describe(episodeCode(season, episode))) });
    };
    const seasons = Array.isArray(entry.seasons) ? entry.seasons : [];
    for (const s of seasons) {
      const season = count(obj(s).number);
      const absolute = isAnime && (season === undefined || season === 1);
      for (const e of Array.isArray(obj(s).episodes) ? (obj(s).episodes as unknown[]) : []) {
        watch(absolute ? undefined : season, intId(obj(e).number), obj(e).watched_at);
      }
    }
    if (isAnime && Array.isArray(entry.episodes)) for (const e of entry.episodes) watch(undefined, intId(obj(e).number), obj(e).watched_at);
  }
  const userRating = typeof entry.user_rating === 'number' ? entry.user_rating : intId(entry.user_rating);
  if (userRating !== undefined) records.push({ kind: 'rating', item: defined({ ...titleRef, rating: userRating, rated_at: dateTime(entry.user_rated_at) }), at: where });
  if (status?.watchlist) records.push({ kind: 'watchlist', item: titleRef, at: where });
  const showStatus = type === 'movie' ? status?.movie : status?.show;
  if (showStatus) records.push({ kind: 'show_status', title: titleRef, status: showStatus, at: where });
  return records;
}

/** One backup document: its three arrays' entries. `prefix` names the ZIP member it came from, if any. */
async function* fromDocument(bytes: AsyncIterable<Uint8Array>, where: string, prefix: string): AsyncGenerator<ImportRecord> {
  const elements = jsonElements(bytes, { where, shapes: ['object'] });
  for (let next = await elements.next(); ; next = await elements.next()) {
    if (next.done) {
      if (!next.value.some((key) => ARRAYS.includes(key as ArrayName))) throw new ImportFileError(`${where} is not a Simkl backup: it has no movies, shows or anime`);
      return;
    }
    const { array, index, value } = next.value;
    if (ARRAYS.includes(array as ArrayName)) yield* entryRecords(array as ArrayName, obj(value), `${prefix}${array}`, index + 1);
  }
}

async function* read(file: AsyncIterable<Uint8Array>): AsyncGenerator<ImportRecord> {
  const { kind, chunks } = await sniff(file);
  if (kind === 'json') {
    yield* fromDocument(chunks, 'the file', '');
  } else if (kind === 'zip') {
    let documents = 0;
    for await (const member of zipMembers(chunks)) {
      if (!member.name.toLowerCase().endsWith('.json')) continue;
      yield* fromDocument(member.body, member.name, `${member.name}/`);
      documents++;
    }
    if (documents === 0) throw new ImportFileError('the ZIP archive holds no Simkl backup (.json file)');
  } else {
    throw new ImportFileError('not a Simkl backup: upload the JSON file (or the ZIP holding it) Simkl\'s backup gives');
  }
}

export const simklImporter: Importer = read;
