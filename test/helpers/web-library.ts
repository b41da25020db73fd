// Steps of the browser tests of the library pages (lists, watchlist, collection): a user with an API
// token for the same account the browser signs in as (to seed and to check through the platform API),
// moving inside the app without a reload (tokens live in the page's memory), and a /trpc call the
// service refuses with a rate limit.
import type { Page } from 'playwright-core';
import type { TestApp } from './app.ts';
import type { Answer } from './http.ts';
import { makeApp, makeUser } from './oauth.ts';
import { ok, platform } from './seed.ts';
import { issueToken } from './tokens.ts';

export type ApiUser = {
  username: string;
  userId: string;
  /** The body of a platform API call that must answer 200. */
  api: (method: string, path: string, body?: unknown) => Promise<Record<string, unknown>>;
  /** A platform API call as it answers. */
  call: (method: string, path: string, body?: unknown) => Promise<Answer>;
};

/** A new user, and platform API calls (which must answer 200) with a token of theirs holding `scopes`. */
export async function apiUser(app: TestApp, username: string, scopes: string[]): Promise<ApiUser> {
  const user = await makeUser(app, username);
  const client = await makeApp(app);
  const token = await issueToken(app, { userId: user.id, clientId: client.client_id, scope: scopes.join(' ') });
  const call = (method: string, path: string, body?: unknown) => platform(app, token, method, path, body);
  return { username, userId: user.id, call, api: (method, path, body) => ok(call(method, path, body)) };
}

/** Goes to `path` inside the app (no reload: the signed-in session stays in the page's memory) and waits for its heading. */
export async function go(page: Page, path: string, heading: string | RegExp): Promise<void> {
  // A string, as the test's TypeScript knows no DOM: wouter follows pushState through popstate.
  await page.evaluate(`history.pushState(null, '', ${JSON.stringify(path)}); dispatchEvent(new PopStateEvent('popstate'))`);
  await page.getByRole('heading', { level: 1, name: heading }).waitFor();
}

/** The text of the app's toast that says when to try again. */
export const RATE_LIMITED = 'Too many requests: try again in 7 s.';

/**
 * Until `done` resolves, every call of `procedure` (e.g. `platform.lists.removeItem`) is answered as the
 * service answers a rate-limited batch: 429 with the tRPC error body (`data.error` rate_limited,
 * `retry_after` 7). Answers the methods of the refused requests.
 */
export async function refusedWhile(page: Page, procedure: string, done: () => Promise<void>): Promise<string[]> {
  // An earlier refusal's toast (gone after a few seconds) would answer for this one.
  await page.getByText(RATE_LIMITED).first().waitFor({ state: 'detached' });
  const pattern = `**/trpc/${procedure}?**`;
  const refused: string[] = [];
  await page.route(pattern, async (route) => {
    refused.push(route.request().method());
    const error = { message: 'Too many requests', code: -32029, data: { code: 'TOO_MANY_REQUESTS', httpStatus: 429, retry_after: 7, error: 'rate_limited', request_id: null } };
    await route.fulfill({ status: 429, contentType: 'application/json', headers: { 'retry-after': '7' }, body: JSON.stringify([{ error }]) });
  });
  try {
    await done();
  } finally {
    await page.unroute(pattern);
  }
  return refused;
}

/** The element the keyboard is on, by its accessible label or text. */
export function focused(page: Page): Promise<string | null> {
  return page.evaluate<string | null>(`document.activeElement?.getAttribute('aria-label') ?? document.activeElement?.textContent ?? null`);
}
