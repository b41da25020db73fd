// Sign-in of the web app, as the official first-party OAuth app the service registers for itself: an
// authorization code with PKCE through the service's own sign-in pages. Tokens live in this module's
// memory only (no storage a script could read after a reload): a reload signs in again silently with
// `prompt=none` against the authorization server's own session cookie (HttpOnly), which answers a code
// with no page when the browser is signed in at /account, and `login_required` when it is not.
// localStorage holds only a hint that the browser was signed in, so a visitor who never signed in is not
// sent through the authorization endpoint on every visit.

const CLIENT_ID = 'media-tracking-web';
const AUTHORIZE = '/api/platform/v1/oauth/authorize';
const TOKEN = '/api/platform/v1/oauth/token';
const SIGN_OUT = '/account/sign-out';
const CALLBACK_PATH = '/auth/callback';

const PENDING_KEY = 'mt.pending-sign-in';
const HINT_KEY = 'mt.signed-in';
/** A silent sign-in that came back without a code is not tried again for this long (no redirect loop). */
const SILENT_RETRY_MS = 60_000;
const SILENT_AT_KEY = 'mt.silent-at';

type Tokens = { access: string; refresh: string | undefined };
type Pending = { state: string; verifier: string; returnTo: string; silent: boolean };

let tokens: Tokens | undefined;
const listeners = new Set<() => void>();

export function isSignedIn(): boolean {
  return tokens !== undefined;
}

/** For useSyncExternalStore: called when the signed-in state changes. */
export function onAuthChange(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

function setTokens(next: Tokens | undefined) {
  tokens = next;
  if (next) localStorage.setItem(HINT_KEY, '1');
  else localStorage.removeItem(HINT_KEY);
  for (const l of listeners) l();
}

const base64url = (bytes: Uint8Array) => btoa(String.fromCharCode(...bytes)).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
const randomString = () => base64url(crypto.getRandomValues(new Uint8Array(32)));

/** Sends the browser to the service's sign-in (or, `silent`, to a sign-in that shows no page). */
export async function signIn(returnTo: string = currentPath(), silent = false): Promise<never> {
  const pending: Pending = { state: randomString(), verifier: randomString(), returnTo: safeReturn(returnTo), silent };
  sessionStorage.setItem(PENDING_KEY, JSON.stringify(pending));
  if (silent) sessionStorage.setItem(SILENT_AT_KEY, String(Date.now()));
  const challenge = base64url(new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(pending.verifier))));
  const params = new URLSearchParams({
    response_type: 'code',
    client_id: CLIENT_ID,
    redirect_uri: `${location.origin}${CALLBACK_PATH}`,
    state: pending.state,
    code_challenge: challenge,
    code_challenge_method: 'S256',
  });
  if (silent) params.set('prompt', 'none');
  location.assign(`${AUTHORIZE}?${params}`);
  return new Promise<never>(() => {});
}

const currentPath = () => `${location.pathname}${location.search}`;
/** Only a path of this site (no open redirect through the state we stored ourselves). */
const safeReturn = (path: string) => (path.startsWith('/') && !path.startsWith('//') && !path.startsWith(CALLBACK_PATH) ? path : '/');

/**
 * Run once at start: finishes a sign-in the browser comes back from, or starts a silent one when the
 * browser was signed in before this load. Answers the path to show.
 */
export async function startAuth(): Promise<{ path: string; error?: string }> {
  if (location.pathname === CALLBACK_PATH) return finishSignIn(new URLSearchParams(location.search));
  const hinted = localStorage.getItem(HINT_KEY) === '1';
  const lastSilent = Number(sessionStorage.getItem(SILENT_AT_KEY) ?? 0);
  if (hinted && !tokens && Date.now() - lastSilent > SILENT_RETRY_MS) await signIn(currentPath(), true);
  return { path: currentPath() };
}

async function finishSignIn(params: URLSearchParams): Promise<{ path: string; error?: string }> {
  const raw = sessionStorage.getItem(PENDING_KEY);
  sessionStorage.removeItem(PENDING_KEY);
  const pending = raw ? (JSON.parse(raw) as Pending) : undefined;
  if (!pending || params.get('state') !== pending.state) return { path: '/', error: 'That sign-in link has expired. Sign in again.' };
  const code = params.get('code');
  if (!code) {
    setTokens(undefined);
    // A silent sign-in that found no session simply leaves the visitor signed out.
    const error = pending.silent ? undefined : params.get('error') === 'access_denied' ? 'Sign-in was cancelled.' : 'Sign-in did not complete. Try again.';
    return error ? { path: pending.returnTo, error } : { path: pending.returnTo };
  }
  const answer = await tokenRequest({
    grant_type: 'authorization_code',
    code,
    redirect_uri: `${location.origin}${CALLBACK_PATH}`,
    code_verifier: pending.verifier,
  });
  if (!answer) return { path: pending.returnTo, error: 'Sign-in did not complete. Try again.' };
  setTokens(answer);
  sessionStorage.removeItem(SILENT_AT_KEY);
  return { path: pending.returnTo };
}

async function tokenRequest(fields: Record<string, string>): Promise<Tokens | undefined> {
  const res = await fetch(TOKEN, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ ...fields, client_id: CLIENT_ID }),
    credentials: 'omit',
  }).catch(() => undefined);
  if (!res?.ok) return undefined;
  const body = (await res.json()) as { access_token?: string; refresh_token?: string };
  return body.access_token ? { access: body.access_token, refresh: body.refresh_token } : undefined;
}

/**
 * The tRPC client's token source: the current access token, or after a 401 a new one from the refresh
 * token held in memory, else from a silent sign-in. When both fail the app is signed out (the page then
 * offers to sign in).
 */
export async function getToken({ forceRefresh }: { forceRefresh: boolean }): Promise<string> {
  if (!forceRefresh || !tokens) return tokens?.access as string;
  const refreshed = tokens.refresh ? await tokenRequest({ grant_type: 'refresh_token', refresh_token: tokens.refresh }) : undefined;
  if (refreshed) {
    setTokens(refreshed);
    return refreshed.access;
  }
  // The refresh token's life is capped (a day from the sign-in): while the browser's session at the
  // service lasts, a silent sign-in gets new tokens; otherwise the app is signed out.
  const lastSilent = Number(sessionStorage.getItem(SILENT_AT_KEY) ?? 0);
  if (Date.now() - lastSilent > SILENT_RETRY_MS) await signIn(currentPath(), true);
  setTokens(undefined);
  throw new Error('Your session has ended. Sign in again.');
}

/** Ends everything: the app's tokens and grant, and the browser's session at the service. */
export async function signOut(): Promise<void> {
  const access = tokens?.access;
  setTokens(undefined);
  sessionStorage.removeItem(SILENT_AT_KEY);
  if (access) {
    await fetch(SIGN_OUT, { method: 'POST', headers: { authorization: `Bearer ${access}` }, credentials: 'same-origin' }).catch(() => undefined);
  }
}
