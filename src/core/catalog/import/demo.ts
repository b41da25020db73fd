// The demo catalog a first embedded start imports by itself: real movies and anime, plus the synthetic
// TV shows, then the recommendations and VACUUM ANALYZE, as importCatalog does for the CLI, but step by
// step, each recorded once it has committed (demo-state.ts), so a start after a kill finishes the import.
// Progress goes to the log (the CLI shows a progress bar instead).
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Logger } from '../../log.ts';
import { refreshRecommendations } from '../recommendations.ts';
import { recordDemoStep } from './demo-repository.ts';
import type { DemoCatalogWork, DemoStep } from './demo-state.ts';
import { importSource } from './importer.ts';
import { demoSource } from './index.ts';
import { vacuumCatalog } from './repository.ts';
import type { ImportProgress, ImportResult } from './types.ts';

export async function importDemoCatalog(em: EntityManager, log: Logger, work: DemoCatalogWork): Promise<void> {
  if (work.interrupted) log.info({ steps: work.steps }, 'finishing an interrupted demo catalog import');
  else {
    log.info('empty embedded catalog: importing the demo catalog');
    await recordDemoStep(em, 'started');
  }
  const started = Date.now();
  let lastLogged = 0;
  const progress: ImportProgress = (done, total, source) => {
    if (Date.now() - lastLogged < 2000) return;
    lastLogged = Date.now();
    log.info({ source, done, total }, 'importing demo catalog');
  };
  const results: ImportResult[] = [];
  const run = async (step: DemoStep) => {
    switch (step) {
      case 'recommendations':
        return void (await refreshRecommendations(em));
      case 'vacuum':
        return vacuumCatalog(em);
      default:
        results.push(await importSource(em, demoSource(step), progress));
    }
  };
  for (const step of work.steps) {
    await run(step);
    await recordDemoStep(em, step);
  }
  const seconds = (Date.now() - started) / 1000;
  if (work.interrupted) log.info({ results, seconds }, 'interrupted demo catalog import finished');
  else log.info({ results, seconds }, 'demo catalog imported');
}
