// `catalog:import [--source NAME]... [--synthetic-count N] [--ids movie:603,show:1396 | --popular-pages N]`
// Imports the catalog with its progress on stderr (a bar on a terminal, JSON lines on a pipe);
// re-running updates titles, never duplicates them.
import { importCatalog, sourcesFor, type SourceOptions } from '../core/catalog/import/index.ts';
import { isSourceName, SOURCE_NAMES } from '../core/catalog/import/source-names.ts';
import type { MovieDbRef } from '../core/catalog/import/movie-db-api.ts';
import { parseOptions, UsageError, type Command } from './command.ts';
import { progressOn } from './progress.ts';

const DEFAULT_SOURCES = ['movies', 'anime', 'synthetic'];

/** `--ids movie:603,show:1396` (catalog:import, catalog:refresh). */
export function parseIds(text: string): MovieDbRef[] {
  return text.split(',').map((part) => {
    const m = /^(movie|show):([1-9]\d*)$/.exec(part.trim());
    if (!m) throw new UsageError(`--ids: "${part}" is not movie:<id> or show:<id>`);
    return { type: m[1] as 'movie' | 'show', movieDbId: Number(m[2]) };
  });
}

function positiveInt(name: string, text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  if (!/^[1-9]\d*$/.test(text)) throw new UsageError(`--${name} must be a positive integer`);
  return Number(text);
}

export const catalogImportCommand: Command = {
  summary: 'Import or update the catalog from the installed data packages (re-running never duplicates)',
  options: [
    ['--source NAME', `repeat for several (default: ${DEFAULT_SOURCES.join(', ')})`],
    ['--synthetic-count N', 'synthetic TV shows to generate (default 200)'],
    ['--ids movie:ID,show:ID', 'movie-db-api: these titles (needs MOVIE_DB_API_KEY)'],
    ['--popular-pages N', 'movie-db-api: this many pages of popular titles'],
  ],
  example: 'catalog:import --source movies --source synthetic --synthetic-count 50',
  usage: `catalog:import [--source ${SOURCE_NAMES.join('|')}]... [--synthetic-count N] [--ids movie:ID,show:ID | --popular-pages N]`,
  async run(db, { config, argv }) {
    const { values } = parseOptions(argv, {
      source: { type: 'string', multiple: true },
      'synthetic-count': { type: 'string' },
      ids: { type: 'string' },
      'popular-pages': { type: 'string' },
    });
    const names = values.source?.length ? values.source : DEFAULT_SOURCES;
    for (const name of names) if (!isSourceName(name)) throw new UsageError(`unknown source "${name}" (known: ${SOURCE_NAMES.join(', ')})`);
    const options: SourceOptions = { synthetic: { count: positiveInt('synthetic-count', values['synthetic-count']) ?? 200 } };
    if (names.includes('movie-db-api')) {
      if (!config.movieDbApiKey) throw new UsageError('the movie-db-api source needs MOVIE_DB_API_KEY');
      const pages = positiveInt('popular-pages', values['popular-pages']);
      if (!values.ids && !pages) throw new UsageError('the movie-db-api source needs --ids or --popular-pages');
      options.movieDbApi = {
        apiKey: config.movieDbApiKey,
        baseUrl: config.movieDbApiUrl,
        ids: values.ids ? parseIds(values.ids) : { popularPages: pages! },
      };
    }

    const progress = progressOn(process.stderr);
    const started = Date.now();
    try {
      const results = await importCatalog(db.orm.em.fork(), sourcesFor(names, options), progress.update);
      return { results, seconds: Math.round((Date.now() - started) / 100) / 10 };
    } finally {
      progress.stop();
    }
  },
};
