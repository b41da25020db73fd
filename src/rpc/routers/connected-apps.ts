// The user's connected apps, for official clients (the account settings of the first-party apps).
import { z } from 'zod';
import { connectedApp, listConnectedApps, revokeConnectedApp } from '../../core/connected-apps/service.ts';
import { officialProcedure, router } from '../trpc.ts';

export const connectedAppsRouter = router({
  list: officialProcedure('profile:read')
    .meta({ openapi: { method: 'GET', path: '/me/connected-apps', tags: ['account'], summary: 'Apps holding grants for this user (official apps only)', protect: true } })
    .input(z.object({}).strict().optional())
    .output(z.object({ items: z.array(connectedApp) }))
    .query(async ({ ctx }) => ({ items: await listConnectedApps(ctx.em, ctx.actor.userId) })),
  revoke: officialProcedure('profile:write')
    .meta({ openapi: { method: 'DELETE', path: '/me/connected-apps/{clientId}', tags: ['account'], summary: 'Revoke every grant and token of an app (official apps only)', protect: true } })
    .input(z.object({ clientId: z.string().min(1).max(100) }))
    .output(z.object({ revoked: z.literal(true) }))
    .mutation(async ({ ctx, input }) => {
      await revokeConnectedApp(ctx.em, ctx.actor.userId, input.clientId);
      return { revoked: true as const };
    }),
});
