// Anime from bangumi-data (CC BY 4.0, https://github.com/bangumi-data/bangumi-data): every item that
// names a movie database id (site 'tmdb': movie/<n>, tv/<n> or tv/<n>/season/<s>), with MAL, AniList,
// AniDB and Bangumi ids. Episode counts, a summary, the rating and collection counts come from the
// Bangumi subjects in anime-sachedule-search-data when it has the subject (a missing file is fine).
//
// Movies: most anime movies are also in the movie dataset, whose English details are better. So an anime
// movie is yielded as an ImportTitle with onExisting 'patch': the importer inserts it whole when the
// movie is missing, and otherwise only marks it anime and adds the anime ids. One item covers both cases,
// and the outcome does not depend on which source runs first (is_anime is sticky in the importer).
//
// TV: all items naming the same show become one show; each item is a season (season 1 when the id has
// none), and several items naming the same season (a split-cour show) are concatenated. Episodes are
// generated as "Episode N", dated from the item's start and broadcast interval.
import fs from 'node:fs/promises';
import path from 'node:path';
import { packageFile } from './package-files.ts';
import type { CatalogSource, ImportEpisode, ImportSeason, ImportTitle } from './types.ts';

export type AnimeDataOptions = {
  /** bangumi-data's dist/data.json; default: the installed package's. */
  dataFile?: string;
  /** anime-sachedule-search-data's dist/subject directory; default: the installed package's. */
  subjectDir?: string;
  /** Only these Bangumi subject ids (tests use a handful instead of all ~8000 items). */
  bangumiIds?: Array<string | number>;
  /** "Now" for telling ended shows from running ones; default: the current time. */
  now?: Date;
};

type Site = { site: string; id?: string; begin?: string; broadcast?: string };
type BangumiItem = {
  title: string;
  titleTranslate?: Record<string, string[] | undefined>;
  type: string;
  lang?: string;
  begin?: string;
  end?: string;
  broadcast?: string;
  sites: Site[];
};
type Subject = {
  eps?: number;
  eps_count?: number;
  summary?: string;
  rating?: { score?: number; total?: number };
  collection?: Record<string, number>;
};
type Entry = { item: BangumiItem; subject: Subject | undefined; season: number };

const DAY_MS = 86_400_000;
/** Bangumi collection counts divided by this land near the movie database's popularity scale. */
const POPULARITY_DIVISOR = 1000;
/** Sanity cap on generated episodes per item (the longest real runs are ~1200). */
const MAX_EPISODES = 5000;
/** Subject files read in parallel. */
const READ_AHEAD = 64;

function site(item: BangumiItem, name: string): string | undefined {
  return item.sites.find((s) => s.site === name)?.id;
}

function intId(value: string | undefined): number | undefined {
  return value && /^\d+$/.test(value) ? Number(value) : undefined;
}

function dateOf(iso: string | undefined): string | undefined {
  if (!iso) return undefined;
  const d = new Date(iso);
  // The UTC date: bangumi-data stores Japanese times in UTC, and the UTC date matches the movie
  // database's release dates and the Japanese "25:30" late-night convention.
  return Number.isNaN(d.getTime()) ? undefined : d.toISOString().slice(0, 10);
}

function addDays(date: string, days: number): string {
  return new Date(Date.parse(`${date}T00:00:00Z`) + days * DAY_MS).toISOString().slice(0, 10);
}

/** Days between episodes from an ISO 8601 repeat like R/2019-04-06T15:00:00.000Z/P7D; TV is weekly. */
function intervalDays(item: BangumiItem): number | undefined {
  const m = /\/P(\d+)([DW])$/.exec(item.broadcast ?? '');
  if (m) return Number(m[1]) * (m[2] === 'W' ? 7 : 1);
  return item.type === 'tv' ? 7 : undefined;
}

/** From the subject when known; else estimated from the run's dates; else 1 for a movie; else unknown. */
function episodeCount(e: Entry): number {
  const known = Math.max(e.subject?.eps ?? 0, e.subject?.eps_count ?? 0);
  if (Number.isInteger(known) && known > 0) return Math.min(known, MAX_EPISODES);
  const begin = Date.parse(e.item.begin ?? '');
  const end = Date.parse(e.item.end ?? '');
  const interval = intervalDays(e.item);
  if (interval && !Number.isNaN(begin) && !Number.isNaN(end) && end >= begin) {
    return Math.min(Math.floor((end - begin) / (interval * DAY_MS)) + 1, MAX_EPISODES);
  }
  return e.item.type === 'movie' ? 1 : 0;
}

function externalIds(item: BangumiItem): Record<string, number | string> {
  const ids: Record<string, number | string> = {};
  for (const [from, to] of [['aniList', 'anilist'], ['anidb', 'anidb'], ['bangumi', 'bangumi']] as const) {
    const raw = site(item, from);
    if (raw) ids[to] = intId(raw) ?? raw;
  }
  return ids;
}

function popularity(subjects: Array<Subject | undefined>): number {
  let total = 0;
  for (const s of subjects) for (const n of Object.values(s?.collection ?? {})) if (Number.isFinite(n)) total += n;
  return total / POPULARITY_DIVISOR;
}

function yearOf(date: string | undefined): number {
  return date ? Number(date.slice(0, 4)) : Number.NaN;
}

export class AnimeDataSource implements CatalogSource {
  readonly name = 'anime_data';
  readonly dataFile: string;
  readonly subjectDir: string;
  readonly #only: Set<string> | undefined;
  readonly #now: Date;
  #skipped = 0;
  #grouped: Promise<{ movies: Map<number, BangumiItem>; shows: Map<number, Array<{ item: BangumiItem; season: number }>> }> | undefined;

  constructor(options: AnimeDataOptions = {}) {
    this.dataFile = options.dataFile ?? packageFile('bangumi-data', 'dist', 'data.json');
    this.subjectDir = options.subjectDir ?? packageFile('anime-sachedule-search-data', 'dist', 'subject');
    this.#only = options.bangumiIds ? new Set(options.bangumiIds.map(String)) : undefined;
    this.#now = options.now ?? new Date();
  }

  async estimate(): Promise<number> {
    const { movies, shows } = await this.#group();
    return movies.size + shows.size;
  }

  skipped(): number {
    return this.#skipped;
  }

  /** Reads bangumi-data once and groups its items by movie database title. */
  #group() {
    this.#grouped ??= (async () => {
      const data = JSON.parse(await fs.readFile(this.dataFile, 'utf8')) as { items: BangumiItem[] };
      const movies = new Map<number, BangumiItem>();
      const shows = new Map<number, Array<{ item: BangumiItem; season: number }>>();
      let skipped = 0;
      for (const item of data.items) {
        const tmdb = site(item, 'tmdb');
        if (!tmdb) continue;
        if (this.#only && !this.#only.has(site(item, 'bangumi') ?? '')) continue;
        const m = /^(movie|tv)\/(\d+)(?:\/season\/(\d+))?$/.exec(tmdb);
        if (!m) {
          // Single episodes (tv/<n>/season/<s>/episode/<e>) and malformed ids.
          skipped++;
          continue;
        }
        const id = Number(m[2]);
        if (m[1] === 'movie') {
          if (movies.has(id)) skipped++;
          else movies.set(id, item);
        } else {
          const list = shows.get(id) ?? [];
          list.push({ item, season: m[3] === undefined ? 1 : Number(m[3]) });
          shows.set(id, list);
        }
      }
      this.#skipped = skipped;
      return { movies, shows };
    })();
    return this.#grouped;
  }

  async #subject(item: BangumiItem): Promise<Subject | undefined> {
    const id = intId(site(item, 'bangumi'));
    if (id === undefined) return undefined;
    try {
      return JSON.parse(await fs.readFile(path.join(this.subjectDir, `${id}.json`), 'utf8')) as Subject;
    } catch {
      return undefined; // not every subject is in the package
    }
  }

  async *items(): AsyncGenerator<ImportTitle> {
    const { movies, shows } = await this.#group();
    // Subject files are read a slice at a time in parallel: one by one, the ~5000 small reads dominate.
    const movieList = [...movies];
    for (let i = 0; i < movieList.length; i += READ_AHEAD) {
      const slice = movieList.slice(i, i + READ_AHEAD);
      const subjects = await Promise.all(slice.map(([, item]) => this.#subject(item)));
      for (const [k, [id, item]] of slice.entries()) yield this.#movie(id, item, subjects[k]);
    }
    const showList = [...shows];
    for (let i = 0; i < showList.length; i += READ_AHEAD) {
      const slice = showList.slice(i, i + READ_AHEAD);
      const entries = await Promise.all(
        slice.map(([, list]) => Promise.all(list.map(async ({ item, season }): Promise<Entry> => ({ item, season, subject: await this.#subject(item) })))),
      );
      for (const [k, [id]] of slice.entries()) yield this.#show(id, entries[k] ?? []);
    }
  }

  #common(item: BangumiItem, subject: Subject | undefined) {
    const releaseDate = dateOf(item.begin);
    return {
      isAnime: true,
      name: item.titleTranslate?.en?.[0] ?? item.title,
      originalName: item.title,
      year: yearOf(releaseDate),
      releaseDate: releaseDate ?? null,
      overview: subject?.summary ?? '',
      communityRating: subject?.rating?.score ?? 0,
      voteCount: subject?.rating?.total ?? 0,
      genres: ['Animation'],
      originalLanguage: item.lang ?? '',
      animeDbId: intId(site(item, 'mal')) ?? null,
      externalIds: externalIds(item),
      source: 'anime_data',
    };
  }

  #movie(id: number, item: BangumiItem, subject: Subject | undefined): ImportTitle {
    const minutes = (Date.parse(item.end ?? '') - Date.parse(item.begin ?? '')) / 60_000;
    return {
      ...this.#common(item, subject),
      type: 'movie',
      movieDbId: id,
      popularity: popularity([subject]),
      status: 'Released',
      // For a film, begin..end is its running time (Spirited Away: 125 minutes).
      runtimeMinutes: item.type === 'movie' && minutes >= 1 && minutes <= 600 ? Math.round(minutes) : null,
      onExisting: 'patch',
    };
  }

  #show(id: number, entries: Entry[]): ImportTitle {
    const order = (e: Entry) => (e.season === 0 ? Number.MAX_SAFE_INTEGER : e.season);
    entries.sort((a, b) => order(a) - order(b) || Date.parse(a.item.begin ?? '') - Date.parse(b.item.begin ?? ''));
    const first = entries[0] as Entry;
    const bySeason = new Map<number, Entry[]>();
    for (const e of entries) bySeason.set(e.season, [...(bySeason.get(e.season) ?? []), e]);

    const seasons: ImportSeason[] = [];
    let absolute = 0;
    for (const [number, parts] of [...bySeason].sort((a, b) => a[0] - b[0])) {
      const episodes: ImportEpisode[] = [];
      for (const part of parts) {
        const start = dateOf(part.item.begin);
        const interval = intervalDays(part.item);
        const count = episodeCount(part);
        for (let k = 0; k < count; k++) {
          const n = episodes.length + 1;
          episodes.push({
            episodeNumber: n,
            // Specials are outside the absolute order.
            absoluteNumber: number === 0 ? null : ++absolute,
            name: `Episode ${n}`,
            airDate: start && (k === 0 || interval !== undefined) ? addDays(start, k * (interval ?? 0)) : null,
          });
        }
      }
      seasons.push({
        seasonNumber: number,
        name: number === 0 ? 'Specials' : `Season ${number}`,
        overview: parts[0]?.subject?.summary ?? '',
        airDate: dateOf(parts[0]?.item.begin) ?? null,
        episodes,
        episodeCount: episodes.length,
      });
    }
    const now = this.#now.getTime();
    const running = entries.some((e) => !e.item.end || Date.parse(e.item.end) > now);
    return {
      ...this.#common(first.item, first.subject),
      type: 'show',
      movieDbId: id,
      popularity: popularity(entries.map((e) => e.subject)),
      status: running ? 'Returning Series' : 'Ended',
      seasons,
    };
  }
}
