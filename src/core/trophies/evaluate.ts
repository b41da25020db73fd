// Which trophies a user has earned by now and not been awarded yet. The job asks after a change of some
// resources (only the metrics those can move, and only for trophies still open); a read asks for every
// metric, since it shows every trophy's progress.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { ChangeResource } from '../changes/resources.ts';
import { TROPHIES, type TrophyDefinition, type TrophyMetric } from './catalog.ts';
import { readEarned } from './award.ts';
import { METRICS_OF_RESOURCE, readMetrics, type Metrics } from './metrics.ts';

export type Evaluation = { earned: Map<string, Date>; metrics: Partial<Metrics>; due: TrophyDefinition[] };

export async function evaluateTrophies(em: EntityManager, userId: string, changed?: Iterable<ChangeResource>): Promise<Evaluation> {
  const earned = await readEarned(em, userId);
  let wanted: Set<TrophyMetric>;
  if (changed) {
    const open = new Set(TROPHIES.filter((d) => !earned.has(d.id)).map((d) => d.metric));
    wanted = new Set([...changed].flatMap((r) => METRICS_OF_RESOURCE[r] ?? []).filter((m) => open.has(m)));
    if (wanted.size === 0) return { earned, metrics: {}, due: [] };
  } else {
    wanted = new Set(TROPHIES.map((d) => d.metric));
  }
  const metrics = await readMetrics(em, userId, wanted);
  const due = TROPHIES.filter((d) => !earned.has(d.id) && metrics[d.metric] !== undefined && metrics[d.metric]! >= d.target);
  return { earned, metrics, due };
}
