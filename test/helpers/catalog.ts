// Fills a test app's database with the demo catalog (real movies and anime, synthetic shows) once.
import { importCatalog, demoSources } from '../../src/core/catalog/import/index.ts';
import type { TestApp } from './app.ts';

export async function importDemo(app: TestApp): Promise<void> {
  await importCatalog(app.db.orm.em.fork(), demoSources());
}
