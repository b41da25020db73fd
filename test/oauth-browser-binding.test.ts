// Sign-in and consent belong to the browser that started the authorization. The attack: someone starts
// an authorization (code flow or device flow) in their own browser, sends the sign-in link to a victim,
// the victim signs in from theirs, and the attacker resumes in the first browser and receives a code (or
// device tokens) for the victim. Each step reads its interaction through the provider's cookie-checked
// interactionDetails, so the victim's browser is told the sign-in was started elsewhere and nobody is
// signed in; the consent form (POST /oauth/authorize) carries a secret bound to the browser
// that was shown the consent page. Two real Chromium contexts play the two browsers.
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { launchBrowser } from './helpers/browser.ts';
import { authorizationUrl, newCodeClient, REDIRECT } from './helpers/code-flow.ts';
import { makeApp, makeUser, PASSWORD, postJson, signIn } from './helpers/oauth.ts';

let app: TestApp;
let browser: Browser;

beforeAll(async () => {
  app = await startTestApp();
  await makeUser(app, 'victim');
  await makeUser(app, 'mallory');
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await app?.stop();
});

const OTHER_BROWSER = /started in another browser/;

/** The hidden fields of the first form on the page. */
async function formFields(page: Page): Promise<Record<string, string>> {
  type Input = { name: string; value: string };
  return page.$$eval('form input[type=hidden]', (inputs) => Object.fromEntries(inputs.map((i) => [(i as unknown as Input).name, (i as unknown as Input).value])));
}

async function withContexts<T>(fn: (attacker: BrowserContext, victim: BrowserContext) => Promise<T>): Promise<T> {
  const attacker = await browser.newContext();
  const victim = await browser.newContext();
  try {
    return await fn(attacker, victim);
  } finally {
    await attacker.close();
    await victim.close();
  }
}

describe('authorization code flow', () => {
  it("a sign-in link opened in another browser says so and signs no one in; the attacker's browser still asks for a sign-in", async () => {
    const c = await newCodeClient(app, { scopes: ['profile:read'] });
    await withContexts(async (attacker, victim) => {
      const a = await attacker.newPage();
      await a.goto((await authorizationUrl(c)).url.toString());
      await a.getByRole('button', { name: 'Sign in' }).waitFor();
      const link = a.url();
      expect(link).toMatch(/\/oauth\/interaction\/[^/]+$/);
      const csrf = (await formFields(a)).csrf!;

      const v = await victim.newPage();
      const shown = await v.goto(link);
      expect(shown!.status()).toBe(403);
      await expect(v.getByText(OTHER_BROWSER).isVisible()).resolves.toBe(true);
      expect(await v.getByRole('button', { name: 'Sign in' }).count()).toBe(0);
      // Posting the sign-in form from the victim's browser (the attacker's csrf token included) is refused too.
      const posted = await v.request.post(`${link}/login`, { form: { csrf, username: 'victim', password: PASSWORD } });
      expect(posted.status()).toBe(403);
      expect(await posted.text()).toMatch(OTHER_BROWSER);

      // Nobody was signed in: the attacker's browser is still asked to sign in.
      await a.reload();
      await a.getByRole('button', { name: 'Sign in' }).waitFor();
      expect(a.url()).toBe(link);
    });
  });

  it('the consent form posted to /oauth/authorize works only from the browser that was shown the consent page', async () => {
    const c = await newCodeClient(app, { scopes: ['profile:read'] });
    await withContexts(async (attacker, victim) => {
      const a = await attacker.newPage();
      await a.route(`${REDIRECT}**`, (route) => route.fulfill({ status: 200, body: 'done' }));
      await a.goto((await authorizationUrl(c)).url.toString());
      await signIn(a, 'mallory');
      await a.getByRole('button', { name: 'Allow' }).waitFor();
      const fields = await formFields(a);
      expect(fields.interaction).toEqual(expect.any(String));

      // The same fields, posted by another browser (no consent secret): refused, nothing granted.
      const v = await victim.newPage();
      await v.goto(app.url);
      const forged = await v.request.post(`${app.url}/api/platform/v1/oauth/authorize`, { form: { ...fields, decision: 'approve' }, maxRedirects: 0 });
      expect(forged.status()).toBe(403);
      expect(await forged.text()).toMatch(OTHER_BROWSER);
      // A forged token with the real interaction id: refused as well.
      const guessed = await a.request.post(`${app.url}/api/platform/v1/oauth/authorize`, { form: { ...fields, csrf: 'x'.repeat(43), decision: 'approve' }, maxRedirects: 0 });
      expect(guessed.status()).toBe(403);

      // The browser that was shown the page approves and reaches the redirect URI with a code.
      await a.getByRole('button', { name: 'Allow' }).click();
      await a.waitForURL(`${REDIRECT}**`);
      expect(new URL(a.url()).searchParams.get('code')).toEqual(expect.any(String));
    });
  });
});

describe('device flow', () => {
  it("the sign-in link of a device confirmation opened in another browser signs no one in, and the device gets no tokens", async () => {
    const created = await makeApp(app, { scopes: ['profile:read'] });
    const code = await postJson(`${app.url}/api/platform/v1/auth/device/code`, { client_id: created.client_id });
    expect(code.status).toBe(200);
    await withContexts(async (attacker, victim) => {
      const a = await attacker.newPage();
      await a.goto(String(code.body.verification_uri_complete));
      await a.getByRole('button', { name: 'Yes, it matches' }).click();
      await a.getByRole('button', { name: 'Sign in' }).waitFor();
      const link = a.url();
      const csrf = (await formFields(a)).csrf!;

      const v = await victim.newPage();
      expect((await v.goto(link))!.status()).toBe(403);
      await expect(v.getByText(OTHER_BROWSER).isVisible()).resolves.toBe(true);
      const posted = await v.request.post(`${link}/login`, { form: { csrf, username: 'victim', password: PASSWORD } });
      expect(posted.status()).toBe(403);

      const poll = await postJson(`${app.url}/api/platform/v1/auth/device/token`, { client_id: created.client_id, device_code: code.body.device_code });
      expect(poll.status).toBe(400);
      expect(poll.body.error).toBe('authorization_pending');
    });
  });
});
