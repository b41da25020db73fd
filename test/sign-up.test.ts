// Sign-up over HTTP: /account/sign-up makes an account under the rules of `user:create` and signs the
// new user in; every refusal shows the form again with what is wrong and its status (400 form mistake,
// 409 username taken in any case, a race between sign-ups included, 403 expired form, 429 throttled);
// the return path is an interaction path of this service or nothing (no open redirect); the first
// start says sign-ups are open. Each test signs up from an address of its own (X-Forwarded-For through
// a trusted proxy), so the per-address throttle of one never touches another.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { query } from '../src/core/db/sql.ts';
import { limitById } from '../src/core/limits/table.ts';
import { createDemoAccount } from '../src/demo.ts';
import { escapeHtml } from '../src/oauth/pages/layout.ts';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { makeUser, postAccountSignIn } from './helpers/oauth.ts';
import { cookiesOf, postSignUp, signUpForm } from './helpers/sign-up.ts';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp({ TRUST_PROXY: '127.0.0.1' });
});
afterAll(() => app?.stop());

const PASSWORD = 'a long enough password';
let nextAddress = 1;
const freshAddress = () => ({ 'x-forwarded-for': `198.51.100.${nextAddress++}` });

async function usersNamed(name: string): Promise<number> {
  const rows = await query<{ n: number }>(app.db.orm.em.fork(), { text: 'select count(*)::int as n from app_user where lower(username) = lower($1)', params: [name] });
  return rows[0]!.n;
}

describe('the form', () => {
  it('is served with a nonce for the login cookie, and links back to sign-in', async () => {
    const form = await signUpForm(app);
    expect(form.status).toBe(200);
    expect(form.text).toContain('<h1>Create an account</h1>');
    expect(form.nonce).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(form.cookie).toBe(`mts_login=${form.nonce}`);
    expect(form.text).toContain('<a href="/account">Sign in</a>');
    expect(form.text).not.toContain('name="return"');
  });
});

describe('a sign-up', () => {
  it('makes the account, signs it in and lands on /account', async () => {
    const res = await postSignUp(app, { username: 'Newcomer', password: PASSWORD, confirm: PASSWORD }, freshAddress());
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('/account');
    // The authorization server's session (one sign-in for the account pages and approvals): a day, signed.
    const session = res.headers.getSetCookie().filter((c) => c.startsWith('_session'));
    expect(session).toHaveLength(2);
    expect(session[0]).toMatch(/^_session=[A-Za-z0-9_-]{43}; path=\/; expires=[^;]+; samesite=lax; httponly$/);
    expect(session[1]).toMatch(/^_session\.sig=[A-Za-z0-9_-]+; path=\/; expires=[^;]+; samesite=lax; httponly$/);
    const expires = Date.parse(/expires=([^;]+)/.exec(session[0]!)![1]!);
    expect(Math.abs(expires - (Date.now() + 86_400_000))).toBeLessThan(60_000);
    const page = await fetch(`${app.url}/account/connected-apps`, { headers: { cookie: cookiesOf(res.headers) } });
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('Signed in as <strong>Newcomer</strong>');
    // The same account the admin CLI would have made: the password signs in, in any case of the name.
    expect((await postAccountSignIn(app, 'newcomer', PASSWORD)).status).toBe(303);
  });

  it.each([
    ['no username', { password: PASSWORD, confirm: PASSWORD }, 'Choose a username.'],
    ['an empty username', { username: '', password: PASSWORD, confirm: PASSWORD }, 'Choose a username.'],
    ['no password', { username: 'nopass', confirm: PASSWORD }, 'Choose a password.'],
    ['no second password', { username: 'noconfirm', password: PASSWORD }, 'Type the password a second time.'],
    ['a short username', { username: 'ab', password: PASSWORD, confirm: PASSWORD }, 'Username must be 3 to 32 characters of letters, digits, "_", "." or "-".'],
    ['a username of 33 characters', { username: 'u'.repeat(33), password: PASSWORD, confirm: PASSWORD }, 'Username must be 3 to 32 characters of letters, digits, "_", "." or "-".'],
    ['a username of 5000 characters', { username: 'u'.repeat(5000), password: PASSWORD, confirm: PASSWORD }, 'Username must be 3 to 32 characters of letters, digits, "_", "." or "-".'],
    ['a username with a space', { username: 'two words', password: PASSWORD, confirm: PASSWORD }, 'Username must be 3 to 32 characters of letters, digits, "_", "." or "-".'],
    ['a short password', { username: 'shortpw', password: 'seven77', confirm: 'seven77' }, 'Password must be 8 to 256 characters.'],
    ['a password of 257 characters', { username: 'longpw', password: 'p'.repeat(257), confirm: 'p'.repeat(257) }, 'Password must be 8 to 256 characters.'],
    ['passwords that differ', { username: 'mismatch', password: PASSWORD, confirm: `${PASSWORD}!` }, 'The two passwords do not match.'],
  ])('with %s is 400 with the form again saying so, and makes nothing', async (_case, fields: Record<string, string>, message) => {
    const res = await postSignUp(app, fields, freshAddress());
    expect(res.status).toBe(400);
    expect(res.text).toContain(`<p class="error" role="alert">${escapeHtml(message)}</p>`);
    expect(res.text).toContain('<h1>Create an account</h1>');
    expect(res.text).toMatch(/name="nonce" value="[A-Za-z0-9_-]{22}"/);
    expect(res.text).not.toContain(PASSWORD);
    expect(res.headers.getSetCookie().some((c) => c.startsWith('_session='))).toBe(false);
    if (fields.username) expect(await usersNamed(fields.username)).toBe(0);
  });

  it('keeps the username typed (cut to the field), never a password', async () => {
    const res = await postSignUp(app, { username: 'keep.me', password: PASSWORD, confirm: 'different one' }, freshAddress());
    expect(res.text).toContain('value="keep.me"');
    const long = await postSignUp(app, { username: 'x'.repeat(40), password: PASSWORD, confirm: PASSWORD }, freshAddress());
    expect(long.text).toContain(`value="${'x'.repeat(32)}"`);
  });

  it('with a NUL character is 400 naming the field, and makes nothing', async () => {
    const res = await postSignUp(app, { username: 'nul\u0000name', password: PASSWORD, confirm: PASSWORD }, freshAddress());
    expect(res.status).toBe(400);
    expect(JSON.parse(res.text)).toMatchObject({ error: 'invalid_request', message: 'username: must not contain the NUL character (\\u0000)' });
    const pw = await postSignUp(app, { username: 'nulpass', password: `pass\u0000word`, confirm: `pass\u0000word` }, freshAddress());
    expect(pw.status).toBe(400);
    expect(await usersNamed('nulpass')).toBe(0);
  });

  it('without the form nonce, or with another, is 403 with a fresh form, and makes nothing', async () => {
    const wrong = await postSignUp(app, { nonce: 'not-the-one', username: 'forged', password: PASSWORD, confirm: PASSWORD }, freshAddress());
    expect(wrong.status).toBe(403);
    expect(wrong.text).toContain('The form has expired. Try again.');
    expect(wrong.text).toMatch(/name="nonce" value="[A-Za-z0-9_-]{22}"/);
    const bare = await fetch(`${app.url}/account/sign-up`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...freshAddress() },
      body: new URLSearchParams({ username: 'forged', password: PASSWORD, confirm: PASSWORD }),
    });
    expect(bare.status).toBe(403);
    expect(await usersNamed('forged')).toBe(0);
  });
});

describe('a taken username', () => {
  it('is 409 with the form saying so, in any case, whoever made the account', async () => {
    await makeUser(app, 'Existing');
    for (const username of ['Existing', 'existing', 'EXISTING']) {
      const res = await postSignUp(app, { username, password: PASSWORD, confirm: PASSWORD }, freshAddress());
      expect(res.status).toBe(409);
      expect(res.text).toContain('That username is taken (in any mix of capitals). Choose another.');
      expect(res.text).toContain(`value="${username}"`);
    }
    expect(await usersNamed('existing')).toBe(1);
  });

  it('decides a race: of six sign-ups at once for one name in different cases, one is made, five are 409', async () => {
    const names = ['Racer', 'racer', 'RACER', 'rAcer', 'raCer', 'racER'];
    const address = freshAddress();
    const forms = await Promise.all(names.map(() => signUpForm(app)));
    const answers = await Promise.all(
      names.map((username, i) =>
        fetch(`${app.url}/account/sign-up`, {
          method: 'POST',
          redirect: 'manual',
          headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: forms[i]!.cookie, ...address },
          body: new URLSearchParams({ nonce: forms[i]!.nonce, username, password: PASSWORD, confirm: PASSWORD }),
        }).then(async (r) => ({ status: r.status, text: await r.text() })),
      ),
    );
    expect(answers.map((a) => a.status).sort()).toEqual([303, 409, 409, 409, 409, 409]);
    for (const a of answers.filter((x) => x.status === 409)) expect(a.text).toContain('That username is taken');
    expect(await usersNamed('racer')).toBe(1);
  });
});

describe('the throttle', () => {
  it('allows 10 sign-ups an hour from one address (made or taken), then 429 with when to retry; form mistakes do not count', async () => {
    expect(limitById('sign-up-ip')).toMatchObject({ points: 10, seconds: 3600, key: 'ip' });
    const address = freshAddress();
    for (let i = 0; i < 12; i++) expect((await postSignUp(app, { username: `typo${i}`, password: PASSWORD, confirm: 'nope nope nope' }, address)).status).toBe(400);
    await makeUser(app, 'taken_one');
    for (let i = 0; i < 5; i++) expect((await postSignUp(app, { username: `bulk${i}`, password: PASSWORD, confirm: PASSWORD }, address)).status).toBe(303);
    for (let i = 0; i < 5; i++) expect((await postSignUp(app, { username: 'taken_one', password: PASSWORD, confirm: PASSWORD }, address)).status).toBe(409);
    const refused = await postSignUp(app, { username: 'one_more', password: PASSWORD, confirm: PASSWORD }, address);
    expect(refused.status).toBe(429);
    expect(refused.text).toMatch(/<p class="error" role="alert">Too many sign-ups from this address\. Try again in \d+ minutes?\.<\/p>/);
    expect(refused.text).toContain('value="one_more"');
    expect(refused.headers.get('x-ratelimit-limit')).toBe('10');
    const retry = Number(refused.headers.get('retry-after'));
    expect(Number.isInteger(retry) && retry > 0 && retry <= 3600).toBe(true);
    expect(refused.headers.getSetCookie().some((c) => c.startsWith('_session='))).toBe(false);
    expect(await usersNamed('one_more')).toBe(0);
    // Another address is not held back.
    expect((await postSignUp(app, { username: 'one_more', password: PASSWORD, confirm: PASSWORD }, freshAddress())).status).toBe(303);
  });
});

describe('the return path', () => {
  it('to an interaction of this service is kept, and the new user goes back there with a handoff scoped to it', async () => {
    const back = '/oauth/interaction/Abc_DEF-123xyz';
    const form = await signUpForm(app, `?return=${encodeURIComponent(back)}`);
    expect(form.text).toContain(`<input type="hidden" name="return" value="${back}">`);
    expect(form.text).toContain(`<a href="${back}">Sign in</a>`);
    const res = await postSignUp(app, { username: 'returner', password: PASSWORD, confirm: PASSWORD, return: back }, freshAddress());
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe(back);
    const handoff = res.headers.getSetCookie().find((c) => c.startsWith('mts_signed_up='))!;
    expect(handoff).toMatch(new RegExp(`^mts_signed_up=[0-9a-f-]{36}\\.\\d+\\.[A-Za-z0-9_-]{43}; Path=${back}; Max-Age=600; HttpOnly; SameSite=Lax$`));
    // Without the provider's interaction cookie of that browser the handoff signs nobody in.
    const page = await fetch(`${app.url}${back}`, { headers: { cookie: cookiesOf(res.headers) } });
    expect(page.status).toBe(403);
    expect(await page.text()).toContain('This sign-in was started in another browser');
  });

  it.each([
    'https://evil.example/oauth/interaction/abc',
    '//evil.example/oauth/interaction/abc',
    '/\\evil.example',
    '/oauth/interaction/abc/../../../account',
    '/oauth/interaction/abc/login',
    '/oauth/interaction/abc?next=https://evil.example',
    '/oauth/interaction/abc#x',
    '/oauth/interaction/',
    '/account/connected-apps',
    'javascript:alert(1)',
  ])('anywhere else (%s) is dropped: the form does not carry it and the new user lands on /account', async (target) => {
    const form = await signUpForm(app, `?return=${encodeURIComponent(target)}`);
    expect(form.status).toBe(200);
    expect(form.text).not.toContain('name="return"');
    expect(form.text).toContain('<a href="/account">Sign in</a>');
    const username = `away${nextAddress}`;
    const res = await postSignUp(app, { username, password: PASSWORD, confirm: PASSWORD, return: target }, freshAddress());
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('/account');
    expect(res.headers.getSetCookie().some((c) => c.startsWith('mts_signed_up='))).toBe(false);
  });
});

describe('the first start', () => {
  it('says sign-ups are open and where', async () => {
    const demo = await createDemoAccount(app.db.orm.em.fork(), app.url, 'open');
    expect(demo.instructions).toContain(`Sign-ups are open: anyone can make an account at ${app.url}/account/sign-up (SIGNUPS=closed turns them off)`);
  });
});
