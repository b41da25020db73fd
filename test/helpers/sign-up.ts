// The sign-up form over plain HTTP, as a browser uses it: load the page (for its nonce cookie), then post it.
import type { TestApp } from './app.ts';

export type PageAnswer = { status: number; text: string; headers: Headers };

/** GET /account/sign-up (with `query`, e.g. "?return=..."): the page, its nonce and the cookie that goes with it. */
export async function signUpForm(app: TestApp, query = '') {
  const res = await fetch(`${app.url}/account/sign-up${query}`);
  const text = await res.text();
  const cookie = res.headers.getSetCookie().map((c) => c.split(';')[0]).join('; ');
  return { status: res.status, text, cookie, nonce: /name="nonce" value="([^"]+)"/.exec(text)?.[1] ?? '' };
}

/** Posts the form with the nonce a fresh page gave; `fields` may override the nonce or leave fields out. */
export async function postSignUp(app: TestApp, fields: Record<string, string>, headers: Record<string, string> = {}): Promise<PageAnswer> {
  const form = await signUpForm(app);
  const res = await fetch(`${app.url}/account/sign-up`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: form.cookie, ...headers },
    body: new URLSearchParams({ nonce: form.nonce, ...fields }),
  });
  return { status: res.status, text: await res.text(), headers: res.headers };
}

/** The `name=value` pairs of the response's Set-Cookie headers, for the next request. */
export const cookiesOf = (headers: Headers) => headers.getSetCookie().map((c) => c.split(';')[0]).join('; ');
