// Wire shapes of trophies (GET /me/trophies, GET /me/trophies/summary, and the `trophies` records of the
// change feed). The contract names trophies by scope only; these shapes are ours (docs/decisions.md).
import { z } from 'zod';
import { METRIC_RULES, TROPHY_CATEGORIES, TROPHY_METRICS, TROPHY_TIERS, TIER_POINTS } from './catalog.ts';

const count = z.number().int().min(0);

const metricDoc = TROPHY_METRICS.map((m) => `\`${m}\`: ${METRIC_RULES[m]}`).join('; ');
const pointsDoc = TROPHY_TIERS.map((t) => `${t} ${TIER_POINTS[t]}`).join(', ');

export const trophy = z
  .strictObject({
    id: z.string().describe('Stable id of the trophy (e.g. `movies-10`); never reused.'),
    name: z.string(),
    description: z.string(),
    category: z.enum(TROPHY_CATEGORIES),
    tier: z.enum(TROPHY_TIERS),
    points: count.describe(`Points the trophy adds to the total when earned (${pointsDoc}).`),
    metric: z.enum(TROPHY_METRICS).describe(`What the trophy counts. ${metricDoc}.`),
    target: z.number().int().min(1).describe('The metric value that earns the trophy.'),
    progress: count.describe('The metric now, capped at target. It can fall below target after history is deleted; an earned trophy stays earned.'),
    earned: z.boolean().describe('Earned once, never taken back.'),
    earnedAt: z.iso.datetime().nullable().describe('When the service awarded the trophy (not when the watch that reached the target happened); null until earned.'),
  })
  .meta({ id: 'Trophy' });
export type Trophy = z.infer<typeof trophy>;

export const trophyList = z
  .strictObject({ items: z.array(trophy).describe('Every trophy of the catalog, in catalog order, with the user\'s progress.') })
  .meta({ id: 'TrophyList' });
export type TrophyList = z.infer<typeof trophyList>;

const tally = z.strictObject({ earned: count, total: count }).meta({ id: 'TrophyTally' });
const byKey = <K extends string>(keys: readonly K[]) => z.strictObject(Object.fromEntries(keys.map((k) => [k, tally])) as Record<K, typeof tally>);

export const trophySummary = z
  .strictObject({
    earned: count.describe('Trophies the user has earned.'),
    total: count.describe('Trophies in the catalog.'),
    points: count.describe('Points of the earned trophies.'),
    totalPoints: count.describe('Points of every trophy in the catalog.'),
    byTier: byKey(TROPHY_TIERS).describe('Earned and total per tier.'),
    byCategory: byKey(TROPHY_CATEGORIES).describe('Earned and total per category.'),
    lastEarnedAt: z.iso.datetime().nullable().describe('When the newest trophy was earned; null when none is.'),
  })
  .meta({ id: 'TrophySummary' });
export type TrophySummary = z.infer<typeof trophySummary>;

export type Tally = z.infer<typeof tally>;
