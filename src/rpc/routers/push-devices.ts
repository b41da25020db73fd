// Mobile push devices (`PushDevice` in the platform OpenAPI document; docs/decisions.md, Push devices): official apps only (others 403
// `first_party_only`); registering and removing need notifications:write, the list notifications:read.
import { z } from 'zod';
import { listPushDevices, registerPushDevice, removePushDevice } from '../../core/devices/service.ts';
import { DEVICES_PER_USER, pushDevice, pushDeviceId, pushDeviceList, registerPushDevice as registerInput } from '../../core/devices/schemas.ts';
import { officialProcedure, router } from '../trpc.ts';

const tags = ['push devices'];
const OFFICIAL = 'Official apps only: other apps get 403 `first_party_only`.';

export const pushDevicesRouter = router({
  register: officialProcedure('notifications:write')
    .meta({
      openapi: {
        method: 'POST', path: '/me/push-devices', tags, protect: true,
        summary: 'Register or refresh this device for push notifications',
        description: `The body is \`token\`, \`environment\`, \`deviceId\`, \`deviceName\`; \`platform\` and \`provider\` are optional and, when absent, inferred from the token's shape (64 hex characters: \`ios\`/\`apns\`; \`ExponentPushToken[...]\`: \`expo\`; anything else: \`android\`/\`fcm\`; see the fields). Registering a \`deviceId\` the user already registered refreshes it: token, name (when sent), platform, provider (sent or inferred again) and environment replaced, enabled again, \`lastSeenAt\` now; \`id\` and \`createdAt\` stay. A token is one device's: any other registration holding it (another deviceId, or another user after an account switch) is removed. A user keeps at most ${DEVICES_PER_USER} registrations; past that the one seen least recently is removed. The token is never returned. Push devices are not in the change feed. ${OFFICIAL}`,
      },
    })
    .input(registerInput)
    .output(pushDevice)
    .mutation(({ ctx, input }) => registerPushDevice(ctx.em, ctx.actor, input)),
  list: officialProcedure('notifications:read')
    .meta({ openapi: { method: 'GET', path: '/me/push-devices', tags, protect: true, summary: 'The user\'s registered push devices, most recently seen first', description: OFFICIAL } })
    .input(z.strictObject({}).optional())
    .output(pushDeviceList)
    .query(async ({ ctx }) => ({ items: await listPushDevices(ctx.em, ctx.actor.userId) })),
  remove: officialProcedure('notifications:write')
    .meta({ openapi: { method: 'DELETE', path: '/me/push-devices/{id}', tags, protect: true, summary: 'Remove a push device registration by its `id`', description: `Another user's registration, or an unknown id, is 404 \`not_found\`. ${OFFICIAL}` } })
    .input(z.strictObject({ id: pushDeviceId }))
    .output(z.strictObject({ id: z.string(), deleted: z.literal(true) }))
    .mutation(async ({ ctx, input }) => {
      await removePushDevice(ctx.em, ctx.actor.userId, input.id);
      return { id: String(input.id), deleted: true as const };
    }),
});
