// Connected apps: the user sees the apps holding grants (name, scopes, first and last use) on a page
// in Chromium and through official-only procedures, and revoking one ends its access and refresh
// tokens at once while other apps keep working.
import { createTRPCClient, httpLink, type TRPCClientError } from '@trpc/client';
import type { Browser, BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { query } from '../src/core/db/sql.ts';
import type { AppRouter } from '../src/rpc/app-router.ts';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { launchBrowser, screenshotPath } from './helpers/browser.ts';
import { approveDevice, getMe, makeApp, makeUser, PASSWORD, postJson } from './helpers/oauth.ts';
import { platform } from './helpers/seed.ts';

let app: TestApp;
let browser: Browser;
let context: BrowserContext;

type Tokens = { clientId: string; access: string; refresh: string };

async function deviceTokens(opts: { official?: boolean; scopes?: string[] } = {}): Promise<Tokens> {
  const created = await makeApp(app, opts);
  const code = await postJson(`${app.url}/api/platform/v1/auth/device/code`, { client_id: created.client_id });
  await approveDevice(context, String(code.body.verification_uri_complete), 'carol');
  const token = await postJson(`${app.url}/api/platform/v1/auth/device/token`, { client_id: created.client_id, device_code: code.body.device_code });
  expect(token.status).toBe(200);
  return { clientId: created.client_id, access: String(token.body.access_token), refresh: String(token.body.refresh_token) };
}

const call = (method: string, path: string, token: string) => platform(app, token, method, path);

let tv: Tokens;
let phone: Tokens;
let official: Tokens;

beforeAll(async () => {
  app = await startTestApp();
  await makeUser(app, 'carol');
  browser = await launchBrowser();
  context = await browser.newContext();
  tv = await deviceTokens({ scopes: ['profile:read', 'history:read'] });
  phone = await deviceTokens({ scopes: ['profile:read', 'lists:read'] });
  official = await deviceTokens({ official: true, scopes: ['profile:read', 'profile:write'] });
  // Distinct names, so the page's Revoke buttons are told apart.
  await query(app.db.orm.em.fork(), { text: `update app set name = 'Tracker (official)' where client_id = $1`, params: [official.clientId] });
  await query(app.db.orm.em.fork(), { text: `update app set name = 'Phone' where client_id = $1`, params: [phone.clientId] });
});
afterAll(async () => {
  await browser?.close();
  await app?.stop();
});

describe('official-only procedures', () => {
  it('serve first-party clients on /trpc with the same bearer tokens', async () => {
    const trpc = createTRPCClient<AppRouter>({ links: [httpLink({ url: `${app.url}/trpc`, headers: { authorization: `Bearer ${official.access}` } })] });
    expect((await trpc.platform.me.get.query()).username).toBe('carol');
    expect((await trpc.platform.connectedApps.list.query()).items).toHaveLength(3);
    const anonymous = createTRPCClient<AppRouter>({ links: [httpLink({ url: `${app.url}/trpc` })] });
    const err = await anonymous.platform.me.get.query().catch((e: unknown) => e);
    expect((err as TRPCClientError<AppRouter>).data).toMatchObject({ error: 'invalid_token', httpStatus: 401 });
  });

  it('lists the connected apps with names, scopes and first and last use', async () => {
    const r = await call('GET', '/me/connected-apps', official.access);
    expect(r.status).toBe(200);
    const items = r.body.items as Array<Record<string, unknown>>;
    expect(items.map((i) => i.clientId).sort()).toEqual([tv.clientId, phone.clientId, official.clientId].sort());
    const tvItem = items.find((i) => i.clientId === tv.clientId)!;
    expect(Object.keys(tvItem).sort()).toEqual(['clientId', 'firstUsedAt', 'lastUsedAt', 'name', 'scopes']);
    expect(tvItem).toMatchObject({ name: 'Living Room TV', scopes: ['history:read', 'profile:read'] });
    expect(String(tvItem.firstUsedAt)).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(Date.parse(String(tvItem.lastUsedAt))).toBeGreaterThanOrEqual(Date.parse(String(tvItem.firstUsedAt)));
  });

  it('refuses apps that are not official with 403 first_party_only', async () => {
    const r = await call('GET', '/me/connected-apps', tv.access);
    expect(r.status).toBe(403);
    expect(r.body).toMatchObject({ error: 'first_party_only' });
  });

  it('revokes an app: its tokens stop at once, the others keep working', async () => {
    const r = await call('DELETE', `/me/connected-apps/${phone.clientId}`, official.access);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ revoked: true });
    expect((await getMe(app, phone.access)).status).toBe(401);
    const refresh = await postJson(`${app.url}/api/platform/v1/auth/refresh`, { client_id: phone.clientId, refresh_token: phone.refresh });
    expect(refresh.status).toBe(400);
    expect(refresh.body.error).toBe('invalid_grant');
    expect((await getMe(app, tv.access)).status).toBe(200);
    const again = await call('DELETE', `/me/connected-apps/${phone.clientId}`, official.access);
    expect(again.status).toBe(404);
    expect(again.body.error).toBe('not_found');
  });
});

describe('connected apps page', () => {
  it('signs in, lists the apps and revokes one in the browser', async () => {
    const page = await (await browser.newContext()).newPage();
    await page.goto(`${app.url}/account/connected-apps`);
    await page.getByLabel('Username').fill('carol');
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Connected apps' }).waitFor();
    await page.screenshot({ path: screenshotPath('connected-apps'), fullPage: true });
    const rowText = await page.locator('tbody').innerText();
    expect(rowText).toContain('Living Room TV');
    expect(rowText).toContain('watch-history reads');

    await page.getByRole('button', { name: 'Revoke Living Room TV' }).click();
    await page.getByRole('heading', { name: 'Connected apps' }).waitFor();
    expect(await page.locator('body').innerText()).not.toContain('Living Room TV');
    expect((await getMe(app, tv.access)).status).toBe(401);
    const refresh = await postJson(`${app.url}/api/platform/v1/auth/refresh`, { client_id: tv.clientId, refresh_token: tv.refresh });
    expect(refresh.body.error).toBe('invalid_grant');
    expect((await getMe(app, official.access)).status).toBe(200);
  });

  it('refuses a revoke without the form token', async () => {
    const res = await fetch(`${app.url}/account/connected-apps/${official.clientId}/revoke`, { method: 'POST', redirect: 'manual' });
    expect(res.status).toBe(403);
    expect((await getMe(app, official.access)).status).toBe(200);
  });
});
