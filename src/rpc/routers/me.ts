// The acting user (GET /me, `Me` in the platform OpenAPI document).
import { z } from 'zod';
import { me, meOutput } from '../../core/accounts/me.ts';
import { platformProcedure, router } from '../trpc.ts';

export const meRouter = router({
  get: platformProcedure('profile:read')
    .meta({ openapi: { method: 'GET', path: '/me', tags: ['account'], summary: 'The user this token acts for, its app and scopes', protect: true } })
    .input(z.object({}).strict().optional())
    .output(meOutput)
    .query(({ ctx }) => me(ctx.em, ctx.actor)),
});
