// Which platform and push provider a registration is for, when the app leaves them out: the documented body
// has neither (token, environment, deviceId, deviceName; docs/decisions.md, Push devices), and a token's shape names its provider.
import { invalidRequest } from '../errors.ts';
import type { PLATFORMS, PROVIDERS } from './schemas.ts';

export type Platform = (typeof PLATFORMS)[number];
export type Provider = (typeof PROVIDERS)[number];

// An APNs device token is 32 bytes, sent as hex; Expo's own tokens are wrapped in its name (the older
// `ExponentPushToken[...]` and the newer `ExpoPushToken[...]`). FCM registration tokens have no fixed
// shape, so they are what is left.
const APNS = /^[0-9a-f]{64}$/i;
const EXPO = /^Expo(nent)?PushToken\[[^\]]+\]$/;

/** The provider a token's shape names: 64 hex characters apns, `ExponentPushToken[...]` expo, else fcm. */
function providerOfToken(token: string): Provider {
  if (APNS.test(token)) return 'apns';
  if (EXPO.test(token)) return 'expo';
  return 'fcm';
}

/**
 * The pair to store: what the app sent, the rest inferred. An absent provider comes from the token's
 * shape; an absent platform from the provider (apns: ios; fcm and expo: android, since an Expo or FCM
 * token does not say which OS it lives on, an iPhone using them sends `platform: ios`). APNs exists only
 * on iOS, so `apns` with `android` is refused whether sent or inferred.
 */
export function pushTarget(token: string, sent: { platform?: Platform | undefined; provider?: Provider | undefined }): { platform: Platform; provider: Provider } {
  const provider = sent.provider ?? providerOfToken(token);
  const platform = sent.platform ?? (provider === 'apns' ? 'ios' : 'android');
  if (provider === 'apns' && platform !== 'ios') {
    throw invalidRequest(`provider: apns needs platform ios${sent.provider ? '' : ' (the token is 64 hex characters, an APNs token)'}`);
  }
  return { platform, provider };
}
