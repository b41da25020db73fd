// Users and apps for OAuth tests, made through the same core functions the admin CLI uses.
import { createUser } from '../../src/core/accounts/service.ts';
import { createApp } from '../../src/core/apps/service.ts';
import type { TestApp } from './app.ts';

export const PASSWORD = 'correct horse battery';

export async function makeUser(app: TestApp, username: string) {
  return createUser(app.db.orm.em.fork(), { username, password: PASSWORD });
}

export async function makeApp(app: TestApp, opts: { confidential?: boolean; scopes?: string[]; redirectUri?: string; official?: boolean } = {}) {
  return createApp(app.db.orm.em.fork(), {
    name: opts.confidential ? 'Web Tracker' : 'Living Room TV',
    redirectUris: [opts.redirectUri ?? 'http://127.0.0.1:8799/callback'],
    scopes: opts.scopes,
    confidential: opts.confidential ?? false,
    official: opts.official ?? false,
  });
}

export async function postJson(url: string, body: unknown): Promise<{ status: number; body: Record<string, unknown>; headers: Headers }> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: res.status, body: (await res.json()) as Record<string, unknown>, headers: res.headers };
}
