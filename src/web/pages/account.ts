// Account pages: sign in, and the connected apps with a Revoke button each (a table that stacks into a
// card per app on a phone: class="stack" and a data-label per cell, see oauth/pages/layout.ts).
import type { ConnectedApp } from '../../core/connected-apps/service.ts';
import { SCOPE_DESCRIPTIONS, isScope } from '../../core/apps/scopes.ts';
import { errorBox, escapeHtml, page, signInForm } from '../../oauth/pages/layout.ts';

/** `next`: the account page to return to once signed in (checked again when the form comes back). */
export function accountSignInPage(opts: { nonce: string; error?: string; username?: string; next?: string | undefined; signUp?: string | undefined }): string {
  const hidden = { nonce: opts.nonce, ...(opts.next ? { next: opts.next } : {}) };
  return page(
    'Sign in',
    `${errorBox(opts.error)}<p>Sign in to manage the apps connected to your account.</p>
     ${signInForm({ action: '/account/sign-in', hidden, username: opts.username, signUp: opts.signUp })}`,
  );
}

export const when = (iso: string) => `<time datetime="${escapeHtml(iso)}">${escapeHtml(iso.slice(0, 16).replace('T', ' '))}</time>`;

export function connectedAppsPage(opts: { username: string; apps: ConnectedApp[]; csrf: string; notice?: string }): string {
  const rows = opts.apps
    .map(
      (a) => `<tr>
        <td data-label="App"><strong>${escapeHtml(a.name)}</strong></td>
        <td data-label="Can"><ul class="scopes">${a.scopes.map((s) => `<li>${escapeHtml(isScope(s) ? SCOPE_DESCRIPTIONS[s] : s)}</li>`).join('')}</ul></td>
        <td data-label="Used (UTC)">First ${when(a.firstUsedAt)}<br>Last ${when(a.lastUsedAt)}</td>
        <td><form method="post" action="/account/connected-apps/${encodeURIComponent(a.clientId)}/revoke">
          <input type="hidden" name="csrf" value="${escapeHtml(opts.csrf)}">
          <button type="submit" class="secondary" aria-label="Revoke ${escapeHtml(a.name)}">Revoke</button>
        </form></td>
      </tr>`,
    )
    .join('');
  const list = opts.apps.length
    ? `<table class="stack"><thead><tr><th>App</th><th>Can</th><th>Used (UTC)</th><th></th></tr></thead><tbody>${rows}</tbody></table>`
    : '<p>No apps are connected to your account.</p>';
  return page(
    'Connected apps',
    `${opts.notice ? `<p role="status">${escapeHtml(opts.notice)}</p>` : ''}
     <p>Signed in as <strong>${escapeHtml(opts.username)}</strong>. Revoking an app signs it out at once. <a href="/account">Your account</a></p>
     ${list}
     <form method="post" action="/account/sign-out"><input type="hidden" name="csrf" value="${escapeHtml(opts.csrf)}">
       <button type="submit" class="secondary">Sign out</button></form>`,
    { wide: true },
  );
}
