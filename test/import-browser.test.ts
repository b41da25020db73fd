// /account/import in Chromium, at a phone's width (390 px) and a laptop's (1280 px): from the account hub
// to the form, a file chosen and its source, the run's page updating itself (no script) until the
// summary, the unmatched rows downloaded as CSV; nothing scrolls sideways, even with a long file name.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { expectNoSidewaysScroll, launchBrowser, screenshotPath } from './helpers/browser.ts';
import { jsonLines, jsonLinesImporters } from './helpers/import-lines.ts';
import { makeUser, signIn } from './helpers/oauth.ts';
import { seedCatalog, SPIRITED_AWAY } from './helpers/seed.ts';

let app: TestApp;
let browser: Browser;
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'import-browser-'));

beforeAll(async () => {
  app = await startTestApp({ IMPORT_INTERVAL_MS: '1000' }, { deps: { importers: jsonLinesImporters } });
  await seedCatalog(app, { shows: 1 });
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await app?.stop();
  fs.rmSync(scratch, { recursive: true, force: true });
});

const at = (row: number, label: string) => ({ file: 'watched.csv', row, label });
const RECORDS = [
  { kind: 'history', at: at(2, 'Spirited Away (2001)'), item: { movie_db_id: SPIRITED_AWAY, watched_at: '2022-03-01T20:00:00Z' } },
  { kind: 'history', at: at(3, `${'W'.repeat(120)} (1999)`), item: { movie_db_id: 99_999_999, watched_at: '2022-03-02T20:00:00Z' } },
  { kind: 'favourite', at: at(4, 'Spirited Away (2001)'), title: { movie_db_id: SPIRITED_AWAY } },
];

describe.each([
  { width: 390, height: 844 },
  { width: 1280, height: 800 },
])('importing at $width px', (viewport) => {
  it('uploads a file, watches the run to its summary and downloads the unmatched rows', async () => {
    const username = `nia_${viewport.width}`;
    await makeUser(app, username);
    const file = path.join(scratch, `letterboxd-export-${'x'.repeat(80)}-${viewport.width}.jsonl`);
    fs.writeFileSync(file, jsonLines(RECORDS));
    const context = await browser.newContext({ viewport, acceptDownloads: true });
    const page = await context.newPage();
    try {
      await page.goto(`${app.url}/account`);
      await signIn(page, username);
      await page.getByRole('heading', { name: 'Your account' }).waitFor();
      await page.getByRole('link', { name: 'Import your history' }).click();
      await page.getByRole('heading', { name: 'Import your history' }).waitFor();
      await expectNoSidewaysScroll(page);
      await page.getByLabel('Where the file comes from').selectOption('letterboxd');
      await page.getByLabel('The exported file').setInputFiles(file);
      await page.screenshot({ path: screenshotPath(`import-form-${viewport.width}`), fullPage: true });
      await page.getByRole('button', { name: 'Import' }).click();

      // The run's page reloads itself until the run ends.
      await page.getByRole('heading', { name: /^Import of letterboxd-export-/ }).waitFor();
      await expect.poll(() => page.locator('#status').innerText(), { timeout: 30_000, interval: 250 }).toBe('Done');
      await expectNoSidewaysScroll(page);
      await page.screenshot({ path: screenshotPath(`import-summary-${viewport.width}`), fullPage: true });
      expect(await page.locator('#imported').innerText()).toBe('2');
      expect(await page.locator('#already-there').innerText()).toBe('0');
      expect(await page.locator('#unmatched').innerText()).toBe('1');
      expect(await page.locator('#invalid').innerText()).toBe('0');

      const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Download the unmatched rows (CSV)' }).click()]);
      const csv = fs.readFileSync((await download.path())!, 'utf8');
      expect(csv).toBe(`kind,file,row,title\r\nhistory,watched.csv,3,${'W'.repeat(120)} (1999)\r\n`);

      // The list of imports shows it.
      await page.getByRole('link', { name: 'All your imports' }).click();
      await page.getByRole('heading', { name: 'Import your history' }).waitFor();
      expect(await page.locator('table.stack tbody tr').count()).toBe(1);
      await expectNoSidewaysScroll(page);
      await page.screenshot({ path: screenshotPath(`import-list-${viewport.width}`), fullPage: true });
    } finally {
      await context.close();
    }
  });
});
