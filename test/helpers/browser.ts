// Real Chromium (Debian's package) driven by playwright-core, for the OAuth pages.
import fs from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { expect } from 'vitest';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
}

/** Where browser tests write their screenshots (looked at by people, kept out of git). */
const SCREENSHOT_DIR = path.resolve(import.meta.dirname, '../../screenshots');
export function screenshotPath(name: string): string {
  fs.mkdirSync(SCREENSHOT_DIR, { recursive: true });
  return path.join(SCREENSHOT_DIR, `${name}.png`);
}

/** Nothing on the page sticks out to the side: the document and its content are as wide as the viewport. */
export async function expectNoSidewaysScroll(page: Page): Promise<void> {
  const width = page.viewportSize()?.width;
  const widths = await page.locator('html').evaluate((html) => ({ client: html.clientWidth, scroll: html.scrollWidth }));
  expect(widths, page.url()).toEqual({ client: width, scroll: width });
}
