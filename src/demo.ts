// A first embedded start also makes a demo user and a demo public app, and prints how to try the device
// flow with curl, and whether people can sign up themselves (SIGNUPS). The password is random and shown
// once; `npm run admin -- user:create` makes more users.
import type { EntityManager } from '@mikro-orm/postgresql';
import { createUser } from './core/accounts/service.ts';
import { createApp } from './core/apps/service.ts';
import { anyUser } from './demo-repository.ts';
import { randomBase64url } from './core/security/random.ts';
import { transaction } from './core/db/transaction.ts';

export async function hasUsers(em: EntityManager): Promise<boolean> {
  return (await anyUser(em)) !== undefined;
}

/** The first start's line on sign-ups: open (and where), or closed (and how accounts are made instead). */
function signUpsLine(baseUrl: string, signups: 'open' | 'closed'): string {
  return signups === 'open'
    ? `Sign-ups are open: anyone can make an account at ${baseUrl}/account/sign-up (SIGNUPS=closed turns them off)`
    : 'Sign-ups are closed (SIGNUPS=closed): make accounts with npm run admin -- user:create';
}

export async function createDemoAccount(em: EntityManager, baseUrl: string, signups: 'open' | 'closed'): Promise<{ username: string; clientId: string; instructions: string }> {
  const password = randomBase64url(12);
  // Together or not at all: a start killed between the two would leave a user (so no later start makes
  // the demo account again) without its app.
  const { user, app } = await transaction(em, async (tx) => ({
    user: await createUser(tx, { username: 'demo', password, displayName: 'Demo user' }),
    app: await createApp(tx, { name: 'Demo TV app', redirectUris: ['http://127.0.0.1:8765/callback'], confidential: false, official: false }),
  }));
  const api = `${baseUrl}/api/platform/v1`;
  const instructions = `
Demo account: username "${user.username}", password "${password}" (shown once)
Demo app (public client): ${app.client_id}

Try the device flow:
  1. curl -s -X POST ${api}/auth/device/code -H 'content-type: application/json' -d '{"client_id":"${app.client_id}"}'
  2. Open verification_uri_complete from the answer in a browser, sign in as demo and allow.
  3. curl -s -X POST ${api}/auth/device/token -H 'content-type: application/json' -d '{"client_id":"${app.client_id}","device_code":"DEVICE_CODE"}'
  4. curl -s ${api}/me -H 'authorization: Bearer ACCESS_TOKEN'
Connected apps: ${baseUrl}/account/connected-apps
${signUpsLine(baseUrl, signups)}
`;
  return { username: user.username, clientId: app.client_id, instructions };
}
