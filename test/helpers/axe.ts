// Accessibility checks in Chromium with axe-core: the WCAG 2.1 A and AA rules on the page as it is.
// The pages' CSP allows no script, so axe is evaluated through the browser's DevTools protocol
// (page.evaluate), which the CSP does not govern; the page itself still runs none.
import axe from 'axe-core';
import type { Page } from 'playwright-core';
import { expect } from 'vitest';

type Violation = { id: string; help: string; targets: string[] };

/**
 * Fails with each violated rule and the elements it found, when the page (or the part of it `within`
 * selects) breaks any WCAG 2.1 A/AA rule.
 */
export async function expectAccessible(page: Page, within?: string): Promise<void> {
  await page.evaluate(axe.source);
  const violations = (await page.evaluate(`axe
    .run(${within ? JSON.stringify({ include: [within] }) : 'document'}, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] } })
    .then((r) => r.violations.map((v) => ({ id: v.id, help: v.help, targets: v.nodes.map((n) => n.target.join(' ')) })))`)) as Violation[];
  expect(violations, page.url()).toEqual([]);
}
