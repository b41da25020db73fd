// Users and apps for OAuth tests, made through the same core functions the admin CLI uses; plain HTTP
// calls of the OAuth endpoints; and the user's steps in Chromium (sign-in, consent, device approval).
import type { BrowserContext, Page } from 'playwright-core';
import { createUser } from '../../src/core/accounts/service.ts';
import { createApp } from '../../src/core/apps/service.ts';
import type { TestApp } from './app.ts';
import { screenshotPath } from './browser.ts';
import { call, type Answer } from './http.ts';

export const PASSWORD = 'correct horse battery';

export async function makeUser(app: TestApp, username: string) {
  return createUser(app.db.orm.em.fork(), { username, password: PASSWORD });
}

export async function makeApp(app: TestApp, opts: { name?: string; confidential?: boolean; scopes?: string[]; redirectUri?: string; official?: boolean } = {}) {
  return createApp(app.db.orm.em.fork(), {
    name: opts.name ?? (opts.confidential ? 'Web Tracker' : 'Living Room TV'),
    redirectUris: [opts.redirectUri ?? 'http://127.0.0.1:8799/callback'],
    scopes: opts.scopes,
    confidential: opts.confidential ?? false,
    official: opts.official ?? false,
  });
}

export function postJson(url: string, body: unknown): Promise<Answer> {
  return call(url, '', { method: 'POST', body: JSON.stringify(body) });
}

export async function postForm(url: string, form: Record<string, string>): Promise<{ status: number; body: Record<string, unknown>; headers: Headers }> {
  const res = await fetch(url, { method: 'POST', body: new URLSearchParams(form) });
  const text = await res.text();
  return { status: res.status, body: (text ? JSON.parse(text) : {}) as Record<string, unknown>, headers: res.headers };
}

/** GET /me with a bearer token (or none). */
export function getMe(app: TestApp, accessToken?: string): Promise<Answer> {
  return call(app, '/api/platform/v1/me', { token: accessToken });
}

/** Signs in on the page the browser is on. */
export async function signIn(page: Page, username: string, shot?: string): Promise<void> {
  await page.getByLabel('Username').fill(username);
  await page.getByLabel('Password').fill(PASSWORD);
  if (shot) await page.screenshot({ path: screenshotPath(shot), fullPage: true });
  await page.getByRole('button', { name: 'Sign in' }).click();
}

/**
 * The browser part of a code flow: returns the URL the app's redirect URI received (never loaded: the
 * browser answers it itself). Signs in when the context has no session yet, and answers the consent
 * page with `decision` when the provider shows one (it does not for a grant the session already holds).
 */
export async function authorizeInBrowser(
  context: BrowserContext,
  url: URL | string,
  opts: { redirectUri: string; username: string; decision?: 'Allow' | 'Deny'; shots?: string },
): Promise<URL> {
  const page = await context.newPage();
  let callback: URL | undefined;
  await page.route(`${opts.redirectUri}**`, async (route) => {
    callback = new URL(route.request().url());
    await route.fulfill({ status: 200, body: 'done' });
  });
  await page.goto(url.toString());
  if (!callback && (await page.getByRole('button', { name: 'Sign in' }).isVisible())) {
    await signIn(page, opts.username, opts.shots && `${opts.shots}-sign-in`);
    await page.getByRole('button', { name: 'Allow' }).or(page.getByText('done')).waitFor();
  }
  if (!callback) {
    if (opts.shots) await page.screenshot({ path: screenshotPath(`${opts.shots}-consent`), fullPage: true });
    await page.getByRole('button', { name: opts.decision ?? 'Allow' }).click();
    await page.waitForURL(`${opts.redirectUri}**`);
  }
  await page.close();
  if (!callback) throw new Error('the authorization never reached the redirect URI');
  return callback;
}

/** The user's side of a device flow, arriving from verification_uri_complete: confirm, sign in if asked, allow. */
export async function approveDevice(context: BrowserContext, verificationUriComplete: string, username: string): Promise<void> {
  const page = await context.newPage();
  await page.goto(verificationUriComplete);
  await page.getByRole('button', { name: 'Yes, it matches' }).click();
  const allow = page.getByRole('button', { name: 'Allow' });
  await page.getByRole('button', { name: 'Sign in' }).or(allow).waitFor();
  if (await page.getByRole('button', { name: 'Sign in' }).isVisible()) await signIn(page, username);
  await allow.click();
  await page.getByRole('heading', { name: 'Device connected' }).waitFor();
  await page.close();
}

/** One /account sign-in as a browser makes it: load the form (for its nonce cookie), then post it. */
/** The browser session a response started (the authorization server's `_session` cookie and its signature), as a Cookie header. */
export function sessionCookie(headers: Headers): string {
  const pairs = headers.getSetCookie().filter((c) => /^_session(\.sig)?=[^;]/.test(c)).map((c) => c.split(';')[0]!);
  if (pairs.length !== 2) throw new Error('the response started no browser session');
  return pairs.join('; ');
}

export async function postAccountSignIn(app: TestApp, username: string, password: string, headers: Record<string, string> = {}): Promise<Response> {
  const form = await fetch(`${app.url}/account/connected-apps`);
  const cookie = form.headers.getSetCookie().map((c) => c.split(';')[0]).join('; ');
  const nonce = /name="nonce" value="([^"]+)"/.exec(await form.text())![1]!;
  return fetch(`${app.url}/account/sign-in`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie, ...headers },
    body: new URLSearchParams({ nonce, username, password }),
  });
}
