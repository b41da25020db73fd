// A local stand-in for the movie database's v3 API for the living catalog's benchmark (no outside service
// is reachable here, and the real one's latency and limits are not ours to load): every movie and show
// id exists, a show has SEASONS seasons of EPISODES episodes, and each answer leaves after `delayMs`, a
// round trip to the real API from a server. Answers have the fields the catalog reads, named and typed as
// the real API names and types them (what test/helpers/fake-movie-db.ts answers, there for tests that
// shape each title). It counts the requests per title: how many a fetch of one title costs.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export const FAKE_PROVIDER_KEY = 'bench-movie-db-key';
export const SEASONS = 3;
const EPISODES = 10;

type Json = Record<string, unknown>;

export type FakeProvider = {
  url: string;
  /** Requests that arrived for the title (its own path and its seasons'). */
  requestsFor(type: 'movie' | 'show', id: number): number;
  /** Every request that arrived so far. */
  total(): number;
  close(): Promise<void>;
};

const overview = (what: string) => `${what}: a story told over two hours, with a cast, a place and a turn near the end, as a real overview runs to a few lines of text.`;

function movieAnswer(id: number): Json {
  const title = `Bench movie ${id}`;
  return {
    id, title, original_title: title, release_date: '2021-05-14', overview: overview(title), tagline: 'A tagline.',
    poster_path: `/p${id}.jpg`, backdrop_path: `/b${id}.jpg`, popularity: 12.5, vote_average: 7.1, vote_count: 420, runtime: 101,
    status: 'Released', original_language: 'en', adult: false, imdb_id: `tt9${id}`,
    genres: [{ id: 18, name: 'Drama' }, { id: 53, name: 'Thriller' }],
    external_ids: { imdb_id: `tt9${id}`, wikidata_id: null, facebook_id: null },
    release_dates: { results: [{ iso_3166_1: 'US', release_dates: [{ certification: 'PG-13', type: 3 }] }] },
  };
}

function showAnswer(id: number): Json {
  const name = `Bench show ${id}`;
  return {
    id, name, original_name: name, first_air_date: '2019-09-01', overview: overview(name), tagline: '',
    poster_path: `/p${id}.jpg`, backdrop_path: null, popularity: 30.2, vote_average: 8.0, vote_count: 900, status: 'Returning Series',
    original_language: 'en', episode_run_time: [45], genres: [{ id: 18, name: 'Drama' }],
    external_ids: { imdb_id: `tt8${id}`, tvdb_id: id, wikidata_id: null },
    content_ratings: { results: [{ iso_3166_1: 'US', rating: 'TV-14' }] },
    seasons: Array.from({ length: SEASONS }, (_, i) => ({
      season_number: i + 1, name: `Season ${i + 1}`, overview: '', poster_path: null, air_date: `${2019 + i}-09-01`, episode_count: EPISODES,
    })),
  };
}

function seasonAnswer(id: number, season: number): Json {
  return {
    id: id * 100 + season, name: `Season ${season}`, overview: '', poster_path: null, air_date: `${2018 + season}-09-01`, season_number: season,
    episodes: Array.from({ length: EPISODES }, (_, i) => ({
      episode_number: i + 1, season_number: season, name: `Episode ${i + 1}`, overview: overview(`Episode ${i + 1}`),
      air_date: `${2018 + season}-09-${String(1 + i).padStart(2, '0')}`, runtime: 45, still_path: null,
    })),
  };
}

export async function startFakeProvider(delayMs: number): Promise<FakeProvider> {
  const counts = new Map<string, number>();
  let total = 0;
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://fake');
    total += 1;
    let body: Json | undefined;
    let m: RegExpMatchArray | null;
    if ((m = url.pathname.match(/^\/3\/movie\/(\d+)$/))) {
      counts.set(`movie:${m[1]}`, (counts.get(`movie:${m[1]}`) ?? 0) + 1);
      body = movieAnswer(Number(m[1]));
    } else if ((m = url.pathname.match(/^\/3\/tv\/(\d+)(?:\/season\/(\d+))?$/))) {
      counts.set(`show:${m[1]}`, (counts.get(`show:${m[1]}`) ?? 0) + 1);
      body = m[2] === undefined ? showAnswer(Number(m[1])) : seasonAnswer(Number(m[1]), Number(m[2]));
    }
    setTimeout(() => {
      const ok = url.searchParams.get('api_key') === FAKE_PROVIDER_KEY && body !== undefined;
      res.writeHead(ok ? 200 : 404, { 'content-type': 'application/json;charset=utf-8' });
      res.end(ok ? JSON.stringify(body) : '{"success":false,"status_code":34,"status_message":"The resource you requested could not be found."}');
    }, delayMs);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requestsFor: (type, id) => counts.get(`${type}:${id}`) ?? 0,
    total: () => total,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
