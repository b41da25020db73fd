// One place for how secrets are hashed: users' passwords and confidential apps' client secrets.
// argon2id with OWASP's recommended minimum (19 MiB memory, 2 passes, 1 lane): a hash takes tens of
// milliseconds (figures: docs/performance.md, 'argon2id hash cost'), and a third of the library
// default's 64 MiB, so concurrent logins do not exhaust memory.
import argon2 from 'argon2';

const ARGON2_OPTIONS = { type: argon2.argon2id, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

export function hashSecret(plain: string): Promise<string> {
  return argon2.hash(plain, ARGON2_OPTIONS);
}

/** False for a wrong secret and for a hash that cannot be read (never throws on bad input). */
export async function verifySecret(hash: string, plain: string): Promise<boolean> {
  try {
    return await argon2.verify(hash, plain);
  } catch {
    return false;
  }
}

/** A hash made with other parameters than today's, to be replaced after the next successful check. */
export function needsRehash(hash: string): boolean {
  try {
    return argon2.needsRehash(hash, ARGON2_OPTIONS);
  } catch {
    return false;
  }
}

// Checking a password for a user who does not exist costs the same as for one who does, so response
// time does not tell which usernames exist. The dummy hash is made once, on first use.
let dummyHash: Promise<string> | undefined;
export async function verifyAgainstDummy(plain: string): Promise<false> {
  dummyHash ??= hashSecret('dummy password for timing only');
  await verifySecret(await dummyHash, plain);
  return false;
}
