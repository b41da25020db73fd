// Synthetic live-action TV shows: no data package has them, and tests, benchmarks and the demo need
// shows with seasons and episodes, some still airing so the calendar has upcoming episodes. Everything
// comes from a seeded generator, so the same options always give the same catalog. The data is clearly
// labelled synthetic (source 'synthetic', overviews start with "Synthetic test data.") and its ids start
// at 9,000,001, far above the movie database's real show ids, so it never collides with real titles.
import { seededRandom, type Random } from './prng.ts';
import type { CatalogSource, ImportEpisode, ImportSeason, ImportTitle } from './types.ts';

export type SyntheticTvOptions = {
  /** Number of shows (default 200). */
  count?: number;
  /** PRNG seed (default 1). */
  seed?: number;
  /** First movie database id (default 9,000,001); shows use startId .. startId + count - 1. */
  startId?: number;
  /** Air dates run from 1990 to one year after this day (default: today, UTC). */
  epoch?: Date;
};

export const SYNTHETIC_START_ID = 9_000_001;

const ADJECTIVES = ['Silent', 'Broken', 'Golden', 'Hidden', 'Last', 'Crimson', 'Northern', 'Quiet', 'Burning', 'Distant',
  'Hollow', 'Iron', 'Midnight', 'Wild', 'Glass', 'Bitter', 'Lost', 'Electric', 'Pale', 'Restless'];
const NOUNS = ['Harbor', 'Kingdom', 'Precinct', 'Frontier', 'Station', 'Orchard', 'Signal', 'Republic', 'Valley', 'Verdict',
  'Archive', 'Lighthouse', 'Syndicate', 'Hospital', 'Coast', 'Empire', 'Ward', 'Circuit', 'Estate', 'Bureau'];
const PLACES = ['Brookfield', 'Eastmoor', 'Port Ellis', 'Cedar Falls', 'New Albion', 'Redwater', 'Kingsbridge', 'Salt Lake',
  'Marlow', 'Ashford', 'Greyhaven', 'Lowell'];
const GENRES = ['Drama', 'Crime', 'Comedy', 'Mystery', 'Sci-Fi & Fantasy', 'Action & Adventure', 'Family', 'Documentary',
  'War & Politics', 'Western', 'Reality', 'Soap'];
const NETWORK_RATINGS = ['TV-G', 'TV-PG', 'TV-14', 'TV-MA'];
const LANGUAGES = ['en', 'en', 'en', 'en', 'de', 'fr', 'es', 'ko', 'sv', 'da'];
const EPISODE_WORDS = ['Pilot', 'Homecoming', 'The Offer', 'Crossroads', 'Aftermath', 'Reckoning', 'Old Friends', 'Smoke',
  'The Long Night', 'Ghosts', 'Leverage', 'Fault Lines', 'Tides', 'Checkmate', 'Exposure', 'Thaw', 'Undertow', 'Blackout'];

const DAY_MS = 86_400_000;
const FIRST_DAY = Date.UTC(1990, 0, 1);

function day(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

function showName(rng: Random): string {
  switch (rng.int(0, 3)) {
    case 0:
      return `The ${rng.pick(ADJECTIVES)} ${rng.pick(NOUNS)}`;
    case 1:
      return `${rng.pick(PLACES)} ${rng.pick(NOUNS)}`;
    case 2:
      return `${rng.pick(ADJECTIVES)} ${rng.pick(PLACES)}`;
    default:
      return `${rng.pick(NOUNS)} of ${rng.pick(PLACES)}`;
  }
}

/** The shows, generated eagerly (a few thousand small objects at most). */
export function syntheticShows(options: SyntheticTvOptions = {}): ImportTitle[] {
  const count = options.count ?? 200;
  const startId = options.startId ?? SYNTHETIC_START_ID;
  const rng = seededRandom(options.seed ?? 1);
  const epoch = options.epoch ?? new Date();
  const today = Date.UTC(epoch.getUTCFullYear(), epoch.getUTCMonth(), epoch.getUTCDate());
  const lastDay = today + 365 * DAY_MS;
  const used = new Map<string, number>();
  const shows: ImportTitle[] = [];

  for (let i = 0; i < count; i++) {
    const seasonCount = rng.int(1, 8);
    const plan = Array.from({ length: seasonCount }, () => ({ episodes: rng.int(6, 22), gapDays: rng.int(200, 500) }));
    // Weekly episodes; the show's whole run must fit between 1990 and a year from the epoch.
    const runDays = plan.reduce((sum, s) => sum + s.gapDays, 0);
    const latestStart = Math.max(FIRST_DAY, lastDay - runDays * DAY_MS);
    let seasonStart = FIRST_DAY + Math.floor(rng.next() * ((latestStart - FIRST_DAY) / DAY_MS + 1)) * DAY_MS;

    const runtime = rng.pick([22, 24, 30, 42, 45, 50, 55, 60]);
    const seasons: ImportSeason[] = [];
    let absolute = 0;
    let lastAir = seasonStart;
    plan.forEach((p, s) => {
      const episodes: ImportEpisode[] = [];
      for (let e = 1; e <= p.episodes; e++) {
        lastAir = seasonStart + (e - 1) * 7 * DAY_MS;
        episodes.push({
          episodeNumber: e,
          absoluteNumber: ++absolute,
          name: e === 1 && s === 0 ? 'Pilot' : `${rng.pick(EPISODE_WORDS)}${rng.int(0, 3) === 0 ? ` (Part ${rng.int(1, 2)})` : ''}`,
          overview: 'Synthetic test data.',
          airDate: day(lastAir),
          runtimeMinutes: runtime + rng.int(-3, 3),
        });
      }
      seasons.push({ seasonNumber: s + 1, name: `Season ${s + 1}`, overview: 'Synthetic test data.', airDate: day(seasonStart), episodes });
      seasonStart += p.gapDays * DAY_MS;
    });

    let name = showName(rng);
    // Names repeat with a few hundred shows; a suffix keeps them apart the way real remakes are.
    const seen = used.get(name) ?? 0;
    used.set(name, seen + 1);
    if (seen > 0) name = `${name} (${seen + 1})`;
    const firstAir = seasons[0]?.airDate ?? day(seasonStart);
    const genres = [rng.pick(GENRES), rng.pick(GENRES)].filter((g, k, all) => all.indexOf(g) === k);
    shows.push({
      type: 'show',
      movieDbId: startId + i,
      isAnime: false,
      name,
      originalName: name,
      year: Number(firstAir.slice(0, 4)),
      releaseDate: firstAir,
      overview: `Synthetic test data. A ${genres.join(' and ').toLowerCase()} series set in ${rng.pick(PLACES)}.`,
      popularity: Math.round(rng.next() * rng.next() * 200_000) / 1000,
      communityRating: Math.round((4 + rng.next() * 5) * 10) / 10,
      voteCount: rng.int(0, 20_000),
      genres,
      originalLanguage: rng.pick(LANGUAGES),
      status: lastAir > today ? 'Returning Series' : rng.int(0, 4) === 0 ? 'Canceled' : 'Ended',
      ageRating: rng.pick(NETWORK_RATINGS),
      episodeRunTimeMinutes: runtime,
      seasons,
      source: 'synthetic',
    });
  }
  return shows;
}

export class SyntheticTvSource implements CatalogSource {
  readonly name = 'synthetic';
  readonly #options: SyntheticTvOptions;

  constructor(options: SyntheticTvOptions = {}) {
    // The epoch is fixed when the source is made, so estimate() and items() agree.
    this.#options = { ...options, epoch: options.epoch ?? new Date() };
  }

  async estimate(): Promise<number> {
    return this.#options.count ?? 200;
  }

  async *items(): AsyncGenerator<ImportTitle> {
    yield* syntheticShows(this.#options);
  }
}
