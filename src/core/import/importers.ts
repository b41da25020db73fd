// The importer of each source the import accepts: the peers' export files (sources/) and this
// service's own export document.
import type { Importer, ImportSource } from './records.ts';
import { importers } from './sources/index.ts';
import { ownImporter } from './sources/own.ts';

const table: Record<ImportSource, Importer> = { ...importers, own: ownImporter };

export function importerFor(source: ImportSource): Importer {
  return overrides.get(source) ?? table[source];
}

const overrides = new Map<ImportSource, Importer>();

/**
 * Test hook, never used in production: reads `source`'s files with another importer (tests drive runs
 * with a reader of their own), until the returned function restores it.
 */
export function overrideImporter(source: ImportSource, importer: Importer): () => void {
  overrides.set(source, importer);
  return () => void overrides.delete(source);
}
