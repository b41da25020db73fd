// A local fake of the movie database's v3 API (no outside service is reachable in tests), for the living
// catalog: movies, shows with seasons and episodes, and find by external id, answered as the real API
// answers them (the fields the catalog reads, with the real names and types). A test changes a title
// between fetches (a new season), makes the provider fail, answer malformed bodies, or hold its answers
// until the test lets them go (a slow provider, concurrent first uses: wait on the event, not a timer),
// and reads which requests arrived.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

const FAKE_KEY = 'fake-movie-db-key';

type FakeEpisode = { number: number; name: string; airDate: string | null; runtime?: number };
type FakeSeason = { number: number; name?: string; episodes: FakeEpisode[] };
export type FakeMovie = { id: number; title: string; releaseDate: string; runtime?: number; imdbId?: string; genres?: string[]; originalLanguage?: string };
export type FakeShow = { id: number; name: string; firstAirDate: string; status?: string; tvdbId?: number; imdbId?: string; seasons: FakeSeason[] };

type Json = Record<string, unknown>;
/** What the fake does for a request instead of answering it well. */
type Trouble = { status: number; body?: string; times?: number } | { body: string; times?: number };

export type FakeMovieDb = {
  url: string;
  /** Every request's path (with `?external_source=` for finds), in order of arrival. */
  hits: string[];
  /** How many requests arrived for paths starting with `prefix` (`/3/movie/77001`). */
  count(prefix: string): number;
  movie(m: FakeMovie): void;
  show(s: FakeShow): void;
  /** Drops a title: the API answers 404 for it. */
  remove(type: 'movie' | 'show', id: number): void;
  /**
   * Requests for paths starting with `prefix` get `trouble` instead of their answer: a status (500, 429,
   * 401...) or a 200 with the given body (malformed JSON, a wrong shape); `times` of them, or all.
   */
  trouble(prefix: string, trouble: Trouble): void;
  /** Requests for paths starting with `prefix` wait until the returned function is called. `arrived`: once one waits. */
  hold(prefix: string): { release(): void; arrived: Promise<void> };
  close(): Promise<void>;
};

function movieAnswer(m: FakeMovie): Json {
  return {
    id: m.id, title: m.title, original_title: m.title, release_date: m.releaseDate, overview: `About ${m.title}.`, tagline: '',
    poster_path: `/poster-${m.id}.jpg`, backdrop_path: null, popularity: 12.5, vote_average: 7.1, vote_count: 420, runtime: m.runtime ?? 101,
    status: 'Released', original_language: m.originalLanguage ?? 'en', adult: false, imdb_id: m.imdbId ?? null,
    genres: (m.genres ?? ['Drama']).map((name, i) => ({ id: 18 + i, name })),
    external_ids: { imdb_id: m.imdbId ?? null, wikidata_id: null, facebook_id: null },
    release_dates: { results: [{ iso_3166_1: 'US', release_dates: [{ certification: 'PG-13', type: 3 }] }] },
  };
}

function showAnswer(s: FakeShow): Json {
  return {
    id: s.id, name: s.name, original_name: s.name, first_air_date: s.firstAirDate, overview: `About ${s.name}.`, tagline: '',
    poster_path: `/poster-${s.id}.jpg`, backdrop_path: null, popularity: 30.2, vote_average: 8.0, vote_count: 900, status: s.status ?? 'Returning Series',
    original_language: 'en', episode_run_time: [45], genres: [{ id: 18, name: 'Drama' }],
    external_ids: { imdb_id: s.imdbId ?? null, tvdb_id: s.tvdbId ?? null, wikidata_id: null },
    content_ratings: { results: [{ iso_3166_1: 'US', rating: 'TV-14' }] },
    seasons: s.seasons.map((season) => ({
      season_number: season.number, name: season.name ?? `Season ${season.number}`, overview: '', poster_path: null,
      air_date: season.episodes[0]?.airDate ?? null, episode_count: season.episodes.length,
    })),
  };
}

function seasonAnswer(s: FakeShow, season: FakeSeason): Json {
  return {
    id: s.id * 100 + season.number, name: season.name ?? `Season ${season.number}`, overview: '', poster_path: null,
    air_date: season.episodes[0]?.airDate ?? null, season_number: season.number,
    episodes: season.episodes.map((e) => ({
      episode_number: e.number, season_number: season.number, name: e.name, overview: '', air_date: e.airDate, runtime: e.runtime ?? 45, still_path: null,
    })),
  };
}

export async function startFakeMovieDb(): Promise<FakeMovieDb> {
  const movies = new Map<number, FakeMovie>();
  const shows = new Map<number, FakeShow>();
  const troubles: Array<{ prefix: string; trouble: Trouble; left: number }> = [];
  const holds: Array<{ prefix: string; released: Promise<void>; arrive(): void }> = [];
  const hits: string[] = [];

  const answer = (path: string, query: URLSearchParams): Json | undefined => {
    let m: RegExpMatchArray | null;
    if ((m = path.match(/^\/3\/movie\/(\d+)$/))) {
      const movie = movies.get(Number(m[1]));
      return movie && movieAnswer(movie);
    }
    if ((m = path.match(/^\/3\/tv\/(\d+)$/))) {
      const show = shows.get(Number(m[1]));
      return show && showAnswer(show);
    }
    if ((m = path.match(/^\/3\/tv\/(\d+)\/season\/(\d+)$/))) {
      const show = shows.get(Number(m[1]));
      const season = show?.seasons.find((s) => s.number === Number(m![2]));
      return show && season && seasonAnswer(show, season);
    }
    if ((m = path.match(/^\/3\/find\/(.+)$/))) {
      const id = decodeURIComponent(m[1]!);
      const source = query.get('external_source');
      const movieHits = [...movies.values()].filter((x) => source === 'imdb_id' && x.imdbId === id);
      const showHits = [...shows.values()].filter((x) => (source === 'imdb_id' && x.imdbId === id) || (source === 'tvdb_id' && String(x.tvdbId) === id));
      return {
        movie_results: movieHits.map((x) => ({ id: x.id, title: x.title, media_type: 'movie' })),
        tv_results: showHits.map((x) => ({ id: x.id, name: x.name, media_type: 'tv' })),
        person_results: [], tv_episode_results: [], tv_season_results: [],
      };
    }
    return undefined;
  };

  const server = http.createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://fake');
    const source = url.searchParams.get('external_source');
    hits.push(source ? `${url.pathname}?external_source=${source}` : url.pathname);
    const json = (status: number, body: string) => res.writeHead(status, { 'content-type': 'application/json;charset=utf-8' }).end(body);
    for (const h of holds.filter((x) => url.pathname.startsWith(x.prefix))) {
      h.arrive();
      await h.released;
    }
    if (url.searchParams.get('api_key') !== FAKE_KEY) return json(401, '{"success":false,"status_code":7,"status_message":"Invalid API key: You must be granted a valid key."}');
    const t = troubles.find((x) => url.pathname.startsWith(x.prefix) && x.left > 0);
    if (t) {
      t.left--;
      return 'status' in t.trouble ? json(t.trouble.status, t.trouble.body ?? '{"status_code":11,"status_message":"Internal error."}') : json(200, t.trouble.body);
    }
    const body = answer(url.pathname, url.searchParams);
    if (!body) return json(404, '{"success":false,"status_code":34,"status_message":"The resource you requested could not be found."}');
    return json(200, JSON.stringify(body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    url,
    hits,
    count: (prefix) => hits.filter((h) => h.startsWith(prefix) && (h.length === prefix.length || !/\d/.test(h[prefix.length]!))).length,
    movie: (m) => void movies.set(m.id, m),
    show: (s) => void shows.set(s.id, s),
    remove: (type, id) => void (type === 'movie' ? movies.delete(id) : shows.delete(id)),
    trouble: (prefix, trouble) => void troubles.push({ prefix, trouble, left: trouble.times ?? Number.POSITIVE_INFINITY }),
    hold: (prefix) => {
      let release!: () => void;
      let arrive!: () => void;
      const released = new Promise<void>((resolve) => (release = resolve));
      const arrived = new Promise<void>((resolve) => (arrive = resolve));
      const h = { prefix, released, arrive };
      holds.push(h);
      return {
        arrived,
        release: () => {
          holds.splice(holds.indexOf(h), 1);
          release();
        },
      };
    },
    close: () =>
      new Promise((resolve) => {
        for (const h of holds.splice(0)) h.arrive();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The service's settings for a living catalog on the fake (a test's startTestApp env). */
export function livingCatalogEnv(fake: FakeMovieDb, extra: Record<string, string> = {}): Record<string, string> {
  return { MOVIE_DB_API_KEY: FAKE_KEY, MOVIE_DB_API_URL: fake.url, ...extra };
}
