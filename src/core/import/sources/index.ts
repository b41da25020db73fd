// The importers by source, where the import run looks them up (the service's own export is read elsewhere).
import type { ImportSource, Importer } from '../records.ts';
import { letterboxdImporter } from './letterboxd.ts';
import { simklImporter } from './simkl.ts';
import { traktImporter } from './trakt.ts';

export const importers: Record<Exclude<ImportSource, 'own'>, Importer> = {
  trakt: traktImporter,
  letterboxd: letterboxdImporter,
  simkl: simklImporter,
};
