// The importer of each source the import accepts: the peers' export files (sources/) and this
// service's own export document. An import run reads with this table unless it is given another.
import type { Importer, ImportSource } from './records.ts';
import { importers } from './sources/index.ts';
import { ownImporter } from './sources/own.ts';

/** An importer for every source. */
export type Importers = Record<ImportSource, Importer>;

export const IMPORTERS: Importers = { ...importers, own: ownImporter };
