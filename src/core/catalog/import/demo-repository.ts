// The demo import's record of its steps (table demo_import_step; demo-state.ts says what they mean).
import type { EntityManager } from '@mikro-orm/postgresql';
import { db } from '../../db/query-builder.ts';

/** The steps recorded so far ('started' and each finished step's name). */
export async function recordedDemoSteps(em: EntityManager): Promise<Set<string>> {
  const rows = await db(em).selectFrom('demo_import_step').select('step').execute();
  return new Set(rows.map((r) => r.step));
}

/** Records a step; recording it again (a step redone after a kill) changes nothing. */
export async function recordDemoStep(em: EntityManager, step: string): Promise<void> {
  await db(em).insertInto('demo_import_step').values({ step }).onConflict((oc) => oc.column('step').doNothing()).execute();
}
