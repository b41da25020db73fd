// Wire shapes of mobile push devices (`PushDevice` in the platform OpenAPI document; POST /me/push-devices is for official apps only). The push
// token is accepted but never shown again: it is kept only to send pushes.
import { z } from 'zod';
import { wireId } from '../wire/numbers.ts';

export const PLATFORMS = ['ios', 'android'] as const;
export const PROVIDERS = ['apns', 'fcm', 'expo'] as const;
const ENVIRONMENTS = ['development', 'production'] as const;
const TOKEN_MIN = 20;
const TOKEN_MAX = 512;
const DEVICE_ID_MAX = 160;
const DEVICE_NAME_MAX = 100;
/** Registrations kept per user; registering one more removes the one seen least recently. */
export const DEVICES_PER_USER = 20;

// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
const chars = (s: string) => [...s].length;

export const pushDevice = z
  .strictObject({
    id: z.string().describe('The registration id (use it to remove the device).'),
    platform: z.enum(PLATFORMS),
    provider: z.enum(PROVIDERS),
    environment: z.enum(ENVIRONMENTS),
    deviceId: z.string(),
    deviceName: z.string().describe('"" when the app sent none.'),
    enabled: z.boolean().describe('Whether pushes are sent to it; a registration is enabled, and registering again re-enables it.'),
    lastSeenAt: z.string().describe('ISO 8601 date-time of the latest registration or refresh.'),
    createdAt: z.string().describe('ISO 8601 date-time of the first registration of this deviceId for this user.'),
  })
  .meta({ id: 'PushDevice' });
export type PushDevice = z.infer<typeof pushDevice>;

export const registerPushDevice = z
  .strictObject({
    token: z
      .string()
      .min(TOKEN_MIN)
      .max(TOKEN_MAX)
      .regex(/^[\x21-\x7e]+$/, 'must be printable ASCII without spaces')
      .describe(`The provider's push token (APNs device token, FCM registration token or Expo push token), ${TOKEN_MIN} to ${TOKEN_MAX} characters. Never returned.`),
    platform: z
      .enum(PLATFORMS)
      .optional()
      .describe('Optional. Absent: `ios` when the provider (sent or inferred) is `apns`, otherwise `android` (an Expo or FCM token does not say which OS it is on: an iPhone using one sends `ios`).'),
    provider: z
      .enum(PROVIDERS)
      .optional()
      .describe(
        'Optional; `apns` only with platform `ios`, `fcm` and `expo` with either. Absent: inferred from the token\'s shape: 64 hex characters is `apns` (with platform `ios`), `ExponentPushToken[...]` or `ExpoPushToken[...]` is `expo`, anything else `fcm` (with platform `android`).',
      ),
    environment: z.enum(ENVIRONMENTS).describe('`development` for debug builds (APNs sandbox), `production` for store builds.'),
    deviceId: z
      .string()
      .min(1)
      .refine((s) => chars(s) <= DEVICE_ID_MAX, `must be at most ${DEVICE_ID_MAX} characters`)
      .refine((s) => !CONTROL.test(s), 'must not contain control characters')
      .describe(`The app's stable id of this installation, 1 to ${DEVICE_ID_MAX} characters: registering again with it refreshes the registration.`),
    deviceName: z
      .string()
      .refine((s) => chars(s) <= DEVICE_NAME_MAX, `must be at most ${DEVICE_NAME_MAX} characters`)
      .refine((s) => !CONTROL.test(s), 'must not contain control characters')
      .optional()
      .describe(`Shown to the user (e.g. "Alice's iPhone"), at most ${DEVICE_NAME_MAX} characters. Absent: "" on a new registration, unchanged on a refresh.`),
  });
export type RegisterPushDevice = z.infer<typeof registerPushDevice>;

export const pushDeviceId = wireId();

export const pushDeviceList = z.strictObject({ items: z.array(pushDevice) }).meta({ id: 'PushDeviceList' });
