// Apps as the provider sees them (OAuth client metadata). Inactive apps are not clients at all: the
// provider then refuses them, and the shims answer `unauthorized_client` before it is asked.
import { FIRST_PARTY_CLIENT_ID } from '../core/apps/first-party.ts';
import type { App } from '../core/apps/service.ts';

const CODE_GRANTS = ['authorization_code', 'refresh_token'];
const DEVICE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';

function isNative(uri: string): boolean {
  const u = new URL(uri);
  return (u.protocol !== 'https:' && u.protocol !== 'http:') || ['localhost', '127.0.0.1', '[::1]'].includes(u.hostname);
}

export function clientMetadata(app: App): Record<string, unknown> | undefined {
  if (!app.active) return undefined;
  // The first-party web app is a web page on BASE_URL, whatever its host (a loopback BASE_URL would
  // otherwise make it "native", which the provider always sends to consent), and it has no use for the
  // device flow: a device code confirmed for it would skip consent like its own sign-in does.
  const webApp = app.client_id === FIRST_PARTY_CLIENT_ID;
  return {
    client_id: app.client_id,
    client_name: app.name,
    redirect_uris: app.redirect_uris,
    // Loopback and private-use redirect URIs are native apps' (RFC 8252); the provider checks them so.
    // Its loopback port freedom is not offered: authorize-check.ts matches every redirect URI exactly first.
    application_type: !webApp && app.redirect_uris.some(isNative) ? 'native' : 'web',
    grant_types: webApp ? CODE_GRANTS : [...CODE_GRANTS, DEVICE_GRANT],
    response_types: ['code'],
    scope: app.allowed_scopes.join(' '),
    // Confidential apps send the secret in the body (JSON or a form: shims.ts hands the provider a form) or with HTTP Basic.
    token_endpoint_auth_method: app.confidential ? 'client_secret_post' : 'none',
    // The stored argon2id hash; the provider's comparison is replaced to verify against it.
    ...(app.confidential && app.client_secret_hash ? { client_secret: app.client_secret_hash } : {}),
    id_token_signed_response_alg: 'ES256',
  };
}
