// Placeholder until the file readers land: every source refuses every file, so an import of one fails
// its run with a clear message and writes nothing. The readers replace this module.
import { ImportFileError, type Importer } from '../records.ts';

const notBuilt: Importer = () => ({
  [Symbol.asyncIterator]: () => ({
    next: () => Promise.reject(new ImportFileError('not built')),
  }),
});

export const importers: Record<'trakt' | 'letterboxd' | 'simkl', Importer> = { trakt: notBuilt, letterboxd: notBuilt, simkl: notBuilt };
