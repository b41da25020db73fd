// Trophies (scope trophies:read): every trophy with the user's progress, and the totals.
import { z } from 'zod';
import { TIER_POINTS, TROPHY_TIERS } from '../../core/trophies/catalog.ts';
import { currentTrophies, trophySummary } from '../../core/trophies/read.ts';
import { trophyList, trophySummary as trophySummaryShape } from '../../core/trophies/schemas.ts';
import { platformProcedure, router } from '../trpc.ts';

const tags = ['trophies'];

const RULES =
  'Trophies are a fixed catalog (see `metric` for what each counts), computed from the user\'s history, ratings and lists. ' +
  'A trophy is earned once, when its metric reaches `target`, and is never taken back: deleting history lowers `progress` but the trophy stays earned. ' +
  'Earning records a `trophy_earned` notification and a `trophies` change in the change feed (scope trophies:read). ' +
  'Writes are evaluated by a background job within seconds; this read also evaluates the caller\'s progress on the fly and awards what is due, so it is always current. ' +
  `Points per tier: ${TROPHY_TIERS.map((t) => `${t} ${TIER_POINTS[t]}`).join(', ')}.`;

export const trophiesRouter = router({
  list: platformProcedure('trophies:read')
    .meta({
      openapi: {
        method: 'GET',
        path: '/me/trophies',
        tags,
        protect: true,
        summary: 'Every trophy, with the user\'s progress and whether (and when) it was earned',
        description: `${RULES} Not paged: the catalog is small; items come in catalog order.`,
      },
    })
    .input(z.strictObject({}).optional())
    .output(trophyList)
    .query(({ ctx }) => currentTrophies(ctx.em, ctx.actor.userId)),
  summary: platformProcedure('trophies:read')
    .meta({
      openapi: {
        method: 'GET',
        path: '/me/trophies/summary',
        tags,
        protect: true,
        summary: 'Trophy totals: earned and total, points, per tier and per category',
        description: RULES,
      },
    })
    .input(z.strictObject({}).optional())
    .output(trophySummaryShape)
    .query(({ ctx }) => trophySummary(ctx.em, ctx.actor.userId)),
});
