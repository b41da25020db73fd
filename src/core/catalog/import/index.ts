// The catalog sources, made by their names (source-names.ts), and the demo set.
import { AnimeDataSource, type AnimeDataOptions } from './anime-data.ts';
import { MovieDbApiSource, type MovieDbApiOptions } from './movie-db-api.ts';
import { MoviesDatasetSource, type MoviesDatasetOptions } from './movies-dataset.ts';
import { SyntheticTvSource, type SyntheticTvOptions } from './synthetic-tv.ts';
import type { CatalogSource } from './types.ts';
import { DEMO_SOURCES, type DemoSource } from './demo-state.ts';
import { SOURCE_NAMES } from './source-names.ts';

export { importCatalog } from './importer.ts';
export type { CatalogSource } from './types.ts';

export type SourceOptions = {
  movies?: MoviesDatasetOptions;
  anime?: AnimeDataOptions;
  synthetic?: SyntheticTvOptions;
  /** Required for 'movie-db-api' (it needs at least the API key and the ids). */
  movieDbApi?: MovieDbApiOptions;
};

export function sourcesFor(names: string[], opts: SourceOptions = {}): CatalogSource[] {
  return names.map((name) => {
    switch (name) {
      case 'movies':
        return new MoviesDatasetSource(opts.movies);
      case 'anime':
        return new AnimeDataSource(opts.anime);
      case 'synthetic':
        return new SyntheticTvSource(opts.synthetic);
      case 'movie-db-api':
        if (!opts.movieDbApi) throw new Error('the movie-db-api source needs an API key (and ids or popular pages)');
        return new MovieDbApiSource(opts.movieDbApi);
      default:
        throw new Error(`unknown catalog source "${name}" (known: ${SOURCE_NAMES.join(', ')})`);
    }
  });
}

/** One source of the demo catalog: real movies, real anime, or 200 synthetic shows. */
export function demoSource(name: DemoSource): CatalogSource {
  return sourcesFor([name], { synthetic: { count: 200 } })[0]!;
}

/** The demo catalog's sources, in order (movies are imported first so anime marks them). */
export function demoSources(): CatalogSource[] {
  return DEMO_SOURCES.map(demoSource);
}
