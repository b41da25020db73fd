// Fills a test app's database with the demo catalog (real movies and anime, synthetic shows) once.
import { importCatalog, demoSources } from '../../src/core/catalog/import/index.ts';
import type { TestApp } from './app.ts';

/**
 * How long a test lets the demo catalog import (or the full datasets' import) take. A deadline, not a
 * measure: the import takes about 30 s on an idle 2-core machine, and has taken over 300 s on one shared
 * with other test runs.
 */
export const IMPORT_DEADLINE_MS = 600_000;

export async function importDemo(app: TestApp): Promise<void> {
  await importCatalog(app.db.orm.em.fork(), demoSources());
}
