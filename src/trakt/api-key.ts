// Trakt's `trakt-api-key` header: the app's client_id, on every request but the OAuth endpoints. A key
// that is no active app's is a 403, as on Trakt; a token used with another app's key too (a token acts
// for the app it was issued to). Apps are looked up at most once a minute per key: deactivating an app
// stops its tokens at once (the bearer check), and its key within a minute.
import type { EntityManager } from '@mikro-orm/postgresql';
import { appByClientId } from '../core/apps/repository.ts';
import { ApiError } from '../core/errors.ts';
import type { Actor } from '../core/actor.ts';

const CHECK_EVERY_MS = 60_000;
const MAX_KEYS = 10_000;
const checked = new Map<string, { active: boolean; at: number }>();

function forbidden(message: string): ApiError {
  return new ApiError('invalid_client', message, {}, 403);
}

async function isActiveApp(em: EntityManager, key: string): Promise<boolean> {
  const now = Date.now();
  const seen = checked.get(key);
  if (seen && now - seen.at < CHECK_EVERY_MS) return seen.active;
  const app = await appByClientId(em, key);
  const active = Boolean(app?.active);
  checked.delete(key);
  checked.set(key, { active, at: now });
  if (checked.size > MAX_KEYS) checked.delete(checked.keys().next().value!);
  return active;
}

/** Throws 403 unless `key` is an active app's client_id (the token's app, when there is a token). */
export async function checkApiKey(em: EntityManager, key: string | undefined, actor: Actor | null | undefined): Promise<void> {
  if (!key || key.length > 200) throw forbidden('The trakt-api-key header must carry your app\'s client_id');
  if (actor) {
    if (actor.clientId !== key) throw forbidden('The access token was issued to another app than trakt-api-key names');
    return;
  }
  if (!(await isActiveApp(em, key))) throw forbidden('trakt-api-key names no active app');
}
