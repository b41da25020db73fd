// Media-server receivers (`MediaServerReceiver` in the platform OpenAPI document): the secret URLs Plex,
// Jellyfin and Emby post their playback to (served by src/rest/media-server-hooks.ts), made and managed
// here with playback:write, the scope of what they record.
import { z } from 'zod';
import {
  createReceiverInput, mediaServerReceiver, mediaServerReceiverList, mediaServerReceiverWithSecret, receiverIdInput, RECEIVERS_PER_USER, updateReceiverInput,
} from '../../core/media-servers/schemas.ts';
import { createReceiver, deleteReceiver, listReceivers, rotateReceiverSecret, updateReceiver } from '../../core/media-servers/receivers.ts';
import { HOOKS_PATH } from '../../core/media-servers/secret.ts';
import { platformProcedure, router } from '../trpc.ts';

const tags = ['media servers'];
const PATH = '/me/media-server-hooks';

const CREATE = `A receiver is a secret URL per kind of server (\`urls.plex\`, \`urls.jellyfin\`, \`urls.emby\`: \`{BASE_URL}${HOOKS_PATH}/{secret}/{kind}\`) \
that turns the server's playback webhooks into this user's playback events: starts, pauses and stops move Continue Watching, a stop \
at or over the watched threshold (or Plex's \`media.scrobble\`, or \`PlayedToCompletion\`) logs the watch once, and the change feed \
and live events follow, attributed to the client id \`media-server:{kind}\`. The secret is in this answer only (the service keeps \
its hash): rotate it for new URLs. A title the catalog lacks is shown in \`deferred\`. A user keeps at most ${RECEIVERS_PER_USER} \
receivers (409 \`conflict\` past that). Receivers are settings: they are not in the change feed.`;

export const mediaServerHooksRouter = router({
  create: platformProcedure('playback:write')
    .meta({ openapi: { method: 'POST', path: PATH, tags, protect: true, summary: 'Create a media-server receiver: secret webhook URLs for Plex, Jellyfin and Emby', description: CREATE }, limits: ['media-server-receivers'], errors: ['conflict'] })
    .input(createReceiverInput)
    .output(mediaServerReceiverWithSecret)
    .mutation(({ ctx, input }) => createReceiver(ctx.em, ctx.actor, input, ctx.config.baseUrl)),

  list: platformProcedure('playback:write')
    .meta({ openapi: { method: 'GET', path: PATH, tags, protect: true, summary: 'The user\'s media-server receivers, oldest first', description: 'Without their secrets: each was shown once, when it was made. `events` counts what each kind of server posted; `deferred` holds the newest events whose title the catalog did not have.' } })
    .input(z.strictObject({}).optional())
    .output(mediaServerReceiverList)
    .query(async ({ ctx }) => ({ items: await listReceivers(ctx.em, ctx.actor.userId) })),

  update: platformProcedure('playback:write')
    .meta({ openapi: { method: 'PATCH', path: `${PATH}/{id}`, tags, protect: true, summary: 'Rename a receiver or change its account filter', description: 'Send `label`, `accountFilter` or both; `accountFilter: null` lets every account of the server count again. Another user\'s receiver, or an unknown id, is 404 `not_found`.' } })
    .input(updateReceiverInput)
    .output(mediaServerReceiver)
    .mutation(({ ctx, input }) => updateReceiver(ctx.em, ctx.actor.userId, input)),

  rotate: platformProcedure('playback:write')
    .meta({ openapi: { method: 'POST', path: `${PATH}/{id}/rotate`, tags, protect: true, summary: 'Give a receiver a new secret: new URLs, the old ones answer 404', description: 'The new secret and URLs are in this answer only. Another user\'s receiver, or an unknown id, is 404 `not_found`.' }, limits: ['media-server-receivers'] })
    .input(receiverIdInput)
    .output(mediaServerReceiverWithSecret)
    .mutation(({ ctx, input }) => rotateReceiverSecret(ctx.em, ctx.actor.userId, input.id, ctx.config.baseUrl)),

  remove: platformProcedure('playback:write')
    .meta({ openapi: { method: 'DELETE', path: `${PATH}/{id}`, tags, protect: true, summary: 'Delete a receiver: its URLs answer 404', description: 'What it recorded stays. Another user\'s receiver, or an unknown id, is 404 `not_found`.' } })
    .input(receiverIdInput)
    .output(z.strictObject({ id: z.number().int(), deleted: z.literal(true) }))
    .mutation(async ({ ctx, input }) => {
      await deleteReceiver(ctx.em, ctx.actor.userId, input.id);
      return { id: input.id, deleted: true as const };
    }),
});
