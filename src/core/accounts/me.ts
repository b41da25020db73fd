// `GET /me`: who the token acts for, and for which app with which scopes.
import type { EntityManager } from '@mikro-orm/postgresql';
import { z } from 'zod';
import type { Actor } from '../actor.ts';
import { findApp } from '../apps/service.ts';
import { ApiError } from '../errors.ts';
import { findUserById } from './service.ts';

export const meOutput = z
  .object({
    id: z.string().describe('Stable user id'),
    username: z.string(),
    displayName: z.string(),
    avatarUrl: z.string().nullable(),
    createdAt: z.iso.datetime(),
    scopes: z.array(z.string()).describe('Scopes granted to this token'),
    app: z.object({ clientId: z.string(), name: z.string(), official: z.boolean() }),
  })
  .meta({ id: 'Me' });

export async function me(em: EntityManager, actor: Actor): Promise<z.infer<typeof meOutput>> {
  const [user, app] = await Promise.all([findUserById(em, actor.userId), findApp(em, actor.clientId)]);
  if (!user || !app) throw new ApiError('invalid_token', 'The token\'s user or app no longer exists');
  return {
    id: user.id,
    username: user.username,
    displayName: user.display_name,
    avatarUrl: user.avatar_url,
    createdAt: new Date(user.created_at).toISOString(),
    scopes: [...actor.scopes].sort(),
    app: { clientId: app.client_id, name: app.name, official: app.official },
  };
}
