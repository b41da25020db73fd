// Confidential apps' client secrets are stored as argon2id hashes (clients.ts hands the provider the
// hash as `client_secret`). oidc-provider has no setting for hashed secrets: it authenticates
// client_secret_basic and client_secret_post by calling `Client#compareClientSecret(presented)`, whose
// own body is a constant-time equality with the stored value, so a hash would never match. Its author
// points to replacing that method on the provider's Client class as the supported way; the method is
// part of its typed API. Pinned by test/oidc-client-secret-hash.test.ts.
import type Provider from 'oidc-provider';
import { verifySecret } from '../core/security/argon2.ts';

/** Makes `provider` verify a presented client secret against the stored argon2id hash, never compare by equality. */
export function verifyHashedClientSecrets(provider: Provider): void {
  provider.Client.prototype.compareClientSecret = async function compare(this: { clientSecret?: string }, actual: string) {
    return Boolean(this.clientSecret && actual) && verifySecret(this.clientSecret!, actual);
  };
}
