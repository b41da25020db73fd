// Keys the provider signs cookies and tokens with, made once and kept in the database so every instance
// of the service uses the same ones (a flow may start on one instance and finish on another).
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import type { MikroORM } from '@mikro-orm/postgresql';
import { keepKey } from '../core/tokens/repository.ts';

export type ProviderKeys = { cookieKeys: string[]; signingKey: Record<string, unknown> };

async function keep<T>(orm: MikroORM, kind: string, make: () => T): Promise<T> {
  // Insert-if-absent, then read: of two instances starting at once, both end up with the first key.
  return (await keepKey(orm.em.fork(), kind, make())) as T;
}

export async function providerKeys(orm: MikroORM): Promise<ProviderKeys> {
  const cookieKeys = await keep(orm, 'cookie', () => [randomBytes(32).toString('base64url')]);
  const signingKey = await keep(orm, 'signing', () => {
    const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    return { ...privateKey.export({ format: 'jwk' }), kid: randomBytes(8).toString('base64url'), use: 'sig', alg: 'ES256' };
  });
  return { cookieKeys, signingKey };
}
