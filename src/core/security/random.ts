// Random identifiers and secrets from the operating system's CSPRNG, URL-safe (base64url, no padding).
import { randomBytes } from 'node:crypto';

export function randomBase64url(bytes: number): string {
  return randomBytes(bytes).toString('base64url');
}
