// The demo catalog a first embedded start imports by itself: real movies and anime, plus the synthetic
// TV shows. Progress goes to the log (the CLI shows a progress bar instead).
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Logger } from '../../log.ts';
import { importCatalog } from './importer.ts';
import { demoSources } from './index.ts';

export async function importDemoCatalog(em: EntityManager, log: Logger): Promise<void> {
  const started = Date.now();
  let lastLogged = 0;
  const results = await importCatalog(em, demoSources(), (done, total, source) => {
    if (Date.now() - lastLogged < 2000) return;
    lastLogged = Date.now();
    log.info({ source, done, total }, 'importing demo catalog');
  });
  log.info({ results, seconds: (Date.now() - started) / 1000 }, 'demo catalog imported');
}
