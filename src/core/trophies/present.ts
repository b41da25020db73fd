// A trophy as the API shows it to one user: the definition, the user's progress and whether (and when)
// it was earned. GET /me/trophies items and the change feed's `trophies` records are this shape.
import { TIER_POINTS, type TrophyDefinition } from './catalog.ts';
import type { Trophy } from './schemas.ts';

export function presentTrophy(d: TrophyDefinition, value: number, earnedAt: Date | null): Trophy {
  return {
    id: d.id,
    name: d.name,
    description: d.description,
    category: d.category,
    tier: d.tier,
    points: TIER_POINTS[d.tier],
    metric: d.metric,
    target: d.target,
    progress: Math.min(value, d.target),
    earned: earnedAt !== null,
    earnedAt: earnedAt === null ? null : earnedAt.toISOString(),
  };
}
