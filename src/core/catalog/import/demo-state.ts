// Where the demo catalog import stands, read on every embedded start. Kept apart from the importer
// (demo.ts, loaded only when there is work) so a later start loads none of it.
//
// The import records 'started' before its first write, then each step once it has committed
// (demo_import_step). A process killed at any point leaves the steps before the kill recorded; the next
// start runs the rest, beginning with the step that was under way. Redoing that step is safe: the
// importer upserts titles, seasons and episodes by their keys (never a duplicate, never a changed id, so
// users' history and ratings keep pointing at their titles), recommendations replace each title's list,
// and VACUUM can always run again.
import type { EntityManager } from '@mikro-orm/postgresql';
import { catalogSize } from '../service.ts';
import { recordedDemoSteps } from './demo-repository.ts';
import type { SourceName } from './source-names.ts';

/** The demo's sources, in order: movies first, so the anime data marks them. */
export const DEMO_SOURCES = ['movies', 'anime', 'synthetic'] as const satisfies readonly SourceName[];
export type DemoSource = (typeof DEMO_SOURCES)[number];

/** Every step of the demo import, in order: each source, then the recommendations, then VACUUM ANALYZE. */
const DEMO_STEPS = [...DEMO_SOURCES, 'recommendations', 'vacuum'] as const;
export type DemoStep = (typeof DEMO_STEPS)[number];

/** What a start has to import: `steps` in order; `interrupted` when an earlier start began the import. */
export type DemoCatalogWork = { steps: DemoStep[]; interrupted: boolean };

/**
 * Every step on an empty catalog; the steps from the first unrecorded one after an interrupted import;
 * nothing when the import is complete, or when the catalog came from elsewhere (an operator's import:
 * titles but no demo import begun). A complete import costs one read of a six-row table.
 */
export async function demoCatalogWork(em: EntityManager): Promise<DemoCatalogWork | undefined> {
  const recorded = await recordedDemoSteps(em);
  if (recorded.has('started')) {
    const next = DEMO_STEPS.findIndex((step) => !recorded.has(step));
    return next < 0 ? undefined : { steps: DEMO_STEPS.slice(next), interrupted: true };
  }
  return (await catalogSize(em)) === 0 ? { steps: [...DEMO_STEPS], interrupted: false } : undefined;
}
