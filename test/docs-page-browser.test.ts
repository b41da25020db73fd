// /docs in Chromium: the getting started (the platform document's introduction, rendered by Swagger UI)
// is shown with self-service registration first, and passes axe's WCAG 2.1 A/AA rules (that part of the
// page: the rest is Swagger UI's own, generated from the documents).
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { expectAccessible } from './helpers/axe.ts';
import { launchBrowser, screenshotPath } from './helpers/browser.ts';

let app: TestApp;
let browser: Browser;

beforeAll(async () => {
  app = await startTestApp();
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await app?.stop();
});

describe('/docs', () => {
  it('shows the getting started with registration at /account/apps, the CLI as the alternative; accessible', async () => {
    const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
    try {
      const page = await context.newPage();
      await page.goto(`${app.url}/docs`);
      const register = page.getByRole('link', { name: `${app.url}/account/apps` });
      await register.waitFor();
      const text = await page.locator('.swagger-ui .info').innerText();
      expect(text.indexOf(`${app.url}/account/apps`)).toBeLessThan(text.indexOf('app:create'));
      await page.screenshot({ path: screenshotPath('docs-getting-started-390'), fullPage: true });
      await expectAccessible(page, '.swagger-ui .information-container');
    } finally {
      await context.close();
    }
  });
});
