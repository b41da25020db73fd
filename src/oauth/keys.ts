// Keys the provider signs cookies and tokens with, made once and kept in the database so every instance
// of the service uses the same ones (a flow may start on one instance and finish on another).
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import type { MikroORM } from '@mikro-orm/postgresql';
import { query } from '../core/db/sql.ts';

export type ProviderKeys = { cookieKeys: string[]; signingKey: Record<string, unknown> };

async function keep<T>(orm: MikroORM, kind: string, make: () => T): Promise<T> {
  const em = orm.em.fork();
  // Insert-if-absent, then read: of two instances starting at once, both end up with the first key.
  await query(em, {
    text: `insert into oauth_key (kind, material) values ($1, $2) on conflict (kind) do nothing`,
    params: [kind, JSON.stringify(make())],
  });
  const [row] = await query<{ material: T }>(em, { text: `select material from oauth_key where kind = $1`, params: [kind] });
  return row!.material;
}

export async function providerKeys(orm: MikroORM): Promise<ProviderKeys> {
  const cookieKeys = await keep(orm, 'cookie', () => [randomBytes(32).toString('base64url')]);
  const signingKey = await keep(orm, 'signing', () => {
    const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    return { ...privateKey.export({ format: 'jwk' }), kid: randomBytes(8).toString('base64url'), use: 'sig', alg: 'ES256' };
  });
  return { cookieKeys, signingKey };
}
