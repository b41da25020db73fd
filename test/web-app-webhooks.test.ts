// An app's webhooks on its page in Chromium, at a phone's size and a desk's, against a real receiver on
// loopback (the service runs with WEBHOOK_ALLOW_PRIVATE=true): the owner adds a webhook (a form mistake
// and a URL the service refuses are shown in the form), sees its secret once, sends a test message
// (signed with that secret; a hung receiver shows the timeout), watches a user's write delivered and
// logged, sees it paused with its reason after a 410 and resumes it (the held message then arrives),
// changes its kinds, rotates its secret (both secrets sign for a day), reads the delivery log and
// deletes it after a confirmation. Every page state passes axe (WCAG 2.1 AA) and scrolls nothing
// sideways. Another user gets the 404 page.
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerOwnedApp } from '../src/core/apps/owned.ts';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { expectAccessible } from './helpers/axe.ts';
import { expectNoSidewaysScroll, launchBrowser, screenshotPath } from './helpers/browser.ts';
import { makeUser, signIn } from './helpers/oauth.ts';
import { ok, platform, seedCatalog, SPIRITED_AWAY } from './helpers/seed.ts';
import { issueConnectedToken } from './helpers/tokens.ts';
import { until } from './helpers/wait.ts';
import { startReceiver, type Receiver } from './helpers/webhook-receiver.ts';
import { verified } from './helpers/webhooks.ts';

let app: TestApp;
let browser: Browser;

beforeAll(async () => {
  app = await startTestApp({ WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_TIMEOUT_MS: '1500' });
  await seedCatalog(app);
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await app?.stop();
});

/** The app's scopes: history and ratings may be sent, trophies may not (no trophies:read). */
const APP_SCOPES = ['profile:read', 'history:read', 'history:write', 'ratings:read'];

async function good(page: Page, shot?: string) {
  await expectNoSidewaysScroll(page);
  await expectAccessible(page);
  if (shot) await page.screenshot({ path: screenshotPath(shot), fullPage: true });
}

const heading = (page: Page, name: string) => page.getByRole('heading', { level: 1, name, exact: true });

describe.each([
  { width: 390, height: 844 },
  { width: 1280, height: 800 },
])('webhooks of an app at $width px', (viewport) => {
  const w = viewport.width;
  const shot = (name: string) => `app-webhooks-${w}-${name}`;
  let receiver: Receiver;
  let context: BrowserContext;
  let page: Page;
  let clientId: string;
  let appPath: string;
  let hookPath: string;
  let secret: string;
  let watcher: { id: string; token: string };

  beforeAll(async () => {
    receiver = await startReceiver();
    receiver.answer(204);
    const owner = await makeUser(app, `hook_owner_${w}`);
    const created = await registerOwnedApp(app.db.orm.em.fork(), owner.id, {
      name: `Hook Tracker ${w}`,
      redirectUris: ['https://tracker.example/callback'],
      scopes: APP_SCOPES,
      confidential: true,
    });
    clientId = created.client_id;
    appPath = `/account/apps/${clientId}`;
    const user = await makeUser(app, `hook_watcher_${w}`);
    watcher = { id: user.id, token: await issueConnectedToken(app, { userId: user.id, clientId, scope: 'history:read history:write' }) };
    context = await browser.newContext({ viewport });
    page = await context.newPage();
    await page.goto(`${app.url}${appPath}`);
    await signIn(page, owner.username);
    await heading(page, 'Your apps').waitFor();
  });
  afterAll(async () => {
    await context?.close();
    await receiver?.close();
  });

  let watches = 0;
  /** A new history entry of the watcher's (three hours apart: watches of a title within an hour are one). */
  const watch = () => ok(platform(app, watcher.token, 'POST', '/watch-history', { type: 'movie', movieDbId: SPIRITED_AWAY, watchedAt: new Date(Date.now() - ++watches * 3 * 3_600_000).toISOString() }));
  const item = (locator: string) => page.locator(locator).first().innerText();
  /** What the receiver got of a type, in the order it came. */
  const ofType = (type: string) => receiver.received.filter((r) => (JSON.parse(r.body) as { type: string }).type === type);

  it('the app page has a Webhooks section, empty at first', async () => {
    await page.goto(`${app.url}${appPath}`);
    const section = page.getByRole('region', { name: 'Webhooks' });
    await section.waitFor();
    expect(await section.innerText()).toContain('No webhooks yet.');
    await good(page, shot('empty'));
  });

  it('adds one: a form mistake and a refused URL are shown in the form; then the secret once', async () => {
    await page.getByRole('link', { name: 'Add a webhook' }).click();
    await heading(page, `Add a webhook to Hook Tracker ${w}`).waitFor();
    expect(await page.getByRole('checkbox', { name: /^trophies/ }).isDisabled()).toBe(true);
    expect(await page.getByRole('checkbox', { name: /^history/ }).isDisabled()).toBe(false);
    await good(page, shot('new'));

    // No kind chosen: the form says so, keeping the URL.
    await page.getByLabel('URL').fill(receiver.url);
    await page.getByRole('button', { name: 'Add webhook' }).click();
    await page.getByRole('alert').waitFor();
    expect(await page.getByRole('alert').innerText()).toBe('Choose at least one kind of change to send.');
    expect(await page.getByLabel('URL').inputValue()).toBe(receiver.url);
    await good(page);

    // The service refuses a URL with a password in it: its reason, in the form, with the kinds kept.
    const withPassword = receiver.url.replace('http://', 'http://user:pw@');
    await page.getByLabel('URL').fill(withPassword);
    await page.getByRole('checkbox', { name: /^history/ }).check();
    await page.getByRole('checkbox', { name: /^authorization\.revoked/ }).check();
    await page.getByRole('button', { name: 'Add webhook' }).click();
    await page.getByRole('alert').waitFor();
    expect(await page.getByRole('alert').innerText()).toBe('URL: must not carry a user name or password.');
    expect(await page.getByRole('checkbox', { name: /^history/ }).isChecked()).toBe(true);
    await good(page, shot('refused'));

    await page.getByLabel('URL').fill(receiver.url);
    await page.getByRole('button', { name: 'Add webhook' }).click();
    await heading(page, `Webhook of Hook Tracker ${w}`).waitFor();
    hookPath = new URL(page.url()).pathname;
    expect(hookPath).toMatch(new RegExp(`^${appPath}/webhooks/[1-9][0-9]*$`));
    expect(await page.getByRole('status').first().innerText()).toContain('The webhook is added');
    secret = (await page.locator('#webhook-secret').innerText()).trim();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(await item('.kinds')).toBe('history, authorization.revoked');
    expect(await item('.status')).toBe('Active');
    expect(await item('.last-delivery')).toBe('None yet');
    await good(page, shot('added'));

    // Shown once: a reload no longer has it.
    await page.reload();
    await heading(page, `Webhook of Hook Tracker ${w}`).waitFor();
    expect(await page.locator('#webhook-secret').count()).toBe(0);
    expect(await page.content()).not.toContain(secret);
  });

  it('sends a test message signed with the secret, and shows the answer; a hung receiver shows the timeout', async () => {
    await page.getByRole('button', { name: 'Send test' }).click();
    await page.locator('#test-outcome').waitFor();
    expect(await item('#test-outcome')).toMatch(/^Test message delivered: HTTP 204 in \d+ ms\.$/);
    const [test] = verified(ofType('webhook.test'), secret);
    expect(test).toMatchObject({ type: 'webhook.test', answered: 204, data: { webhookId: hookPath.split('/').at(-1) } });
    await good(page, shot('tested'));
    // Shown once, like the secret.
    await page.reload();
    expect(await page.locator('#test-outcome').count()).toBe(0);

    receiver.answer('hang');
    await page.getByRole('button', { name: 'Send test' }).click();
    await page.locator('#test-outcome').waitFor();
    expect(await item('#test-outcome')).toMatch(/^Test message not delivered: no answer within 1\.5 s in 1[5-9]\d\d ms\.$/);
    await good(page);
    receiver.answer(204);
  });

  it('delivers a user\'s write: the page shows the last delivery and the log has it, newest first', async () => {
    await watch();
    await until('the history message', () => ofType('history.upsert').length === 1);
    const [message] = verified(ofType('history.upsert'), secret);
    expect(message!.body).toMatchObject({ type: 'history.upsert', data: { userId: watcher.id, change: { resource: 'history', op: 'upsert' } } });

    await until('the page to show it', async () => {
      await page.reload();
      return (await item('.last-delivery')).endsWith(': HTTP 204');
    });
    await good(page);

    await page.getByRole('link', { name: 'Delivery log' }).click();
    await heading(page, 'Delivery log').waitFor();
    const rows = page.locator('table.deliveries tbody tr');
    expect(await rows.count()).toBe(3);
    const cells = async (i: number) => (await rows.nth(i).locator('td').allInnerTexts()).map((t) => t.replace(/^.*\n/, '').trim());
    const [newest, hung, first] = [await cells(0), await cells(1), await cells(2)];
    expect(newest.slice(1, 6)).toEqual(['history.upsert', watcher.id, '1', '204', '']);
    expect(hung.slice(1, 6)).toEqual(['webhook.test', '(test)', '1', 'none', 'no answer within 1.5 s']);
    expect(first.slice(1, 6)).toEqual(['webhook.test', '(test)', '1', '204', '']);
    expect(newest[6]).toMatch(/^\d+ ms$/);
    await good(page, shot('log'));
  });

  it('is paused with its reason after a 410; Resume sends what was held', async () => {
    receiver.answer(410);
    await watch();
    await page.goto(`${app.url}${hookPath}`);
    await until('the pause', async () => {
      await page.reload();
      return (await item('.status')).startsWith('Paused');
    });
    expect(await item('.status')).toMatch(/^Paused since \d{4}-\d\d-\d\d \d\d:\d\d: The receiver answered 410 Gone\. Nothing is sent until you resume it\.$/);
    expect(await item('.last-delivery')).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d: HTTP 410; last success \d{4}-\d\d-\d\d \d\d:\d\d$/);
    await good(page, shot('paused'));
    await page.goto(`${app.url}${appPath}`);
    expect(await page.getByRole('region', { name: 'Webhooks' }).innerText()).toContain('The receiver answered 410 Gone');
    await good(page, shot('app-paused'));

    const held = ofType('history.upsert').length;
    receiver.answer(200);
    await page.goto(`${app.url}${hookPath}`);
    await page.getByRole('button', { name: 'Resume' }).click();
    await page.getByText('The webhook is resumed').waitFor();
    expect(await page.getByRole('button', { name: 'Resume' }).count()).toBe(0);
    await until('the held message', () => ofType('history.upsert').length === held + 1);
    // The message that met the 410 comes again under the same id: a receiver drops repeats by it.
    const [gone, again] = ofType('history.upsert').slice(-2);
    expect([gone!.answered, again!.answered]).toEqual([410, 200]);
    expect(again!.headers['webhook-id']).toBe(gone!.headers['webhook-id']);
    await good(page);
  });

  it('changes its kinds: a kind the app cannot use stays out of reach', async () => {
    await page.getByRole('link', { name: 'Change…' }).click();
    await heading(page, 'Change the webhook').waitFor();
    expect(await page.getByLabel('URL').inputValue()).toBe(receiver.url);
    await page.getByRole('checkbox', { name: /^authorization\.revoked/ }).uncheck();
    await page.getByRole('checkbox', { name: /^ratings/ }).check();
    await good(page, shot('edit'));
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText('The webhook is saved.').waitFor();
    expect(await item('.kinds')).toBe('history, ratings');
  });

  it('rotates the secret: shown once, and the next message is signed with the new one and, for a day, the old', async () => {
    await page.getByRole('button', { name: 'Rotate secret' }).click();
    await page.getByText('The secret is rotated').waitFor();
    const fresh = (await page.locator('#webhook-secret').innerText()).trim();
    expect(fresh).toMatch(/^whsec_/);
    expect(fresh).not.toBe(secret);
    await good(page, shot('rotated'));
    await page.getByRole('button', { name: 'Send test' }).click();
    await page.locator('#test-outcome').waitFor();
    const last = ofType('webhook.test').at(-1)!;
    expect(String(last.headers['webhook-signature']).split(' ')).toHaveLength(2);
    expect(() => verified([last], fresh)).not.toThrow();
    expect(() => verified([last], secret)).not.toThrow();
  });

  it('another user gets the 404 page for it', async () => {
    const other = await browser.newContext({ viewport });
    try {
      const eve = await other.newPage();
      await makeUser(app, `hook_eve_${w}`);
      await eve.goto(`${app.url}/account`);
      await signIn(eve, `hook_eve_${w}`);
      await eve.getByRole('heading', { name: 'Your account' }).waitFor();
      for (const path of [hookPath, `${hookPath}/deliveries`, `${hookPath}/edit`, `${appPath}/webhooks/new`]) {
        expect((await eve.goto(`${app.url}${path}`))!.status(), path).toBe(404);
        expect(await eve.content()).not.toContain(receiver.url);
      }
      await good(eve);
    } finally {
      await other.close();
    }
  });

  it('deletes it after a confirmation', async () => {
    await page.goto(`${app.url}${hookPath}`);
    await page.getByRole('link', { name: 'Delete…' }).click();
    await heading(page, 'Delete the webhook?').waitFor();
    await good(page, shot('delete'));
    await page.getByRole('button', { name: 'Delete the webhook for good' }).click();
    await page.getByText('The webhook is deleted.').waitFor();
    expect(new URL(page.url()).pathname).toBe(appPath);
    expect(await page.getByRole('region', { name: 'Webhooks' }).innerText()).toContain('No webhooks yet.');
    await good(page);
    expect((await page.goto(`${app.url}${hookPath}`))!.status()).toBe(404);
  });
});
