// Developer apps pages: the apps a user owns, the registration form, one app with its actions, and the
// delete confirmation. Everything a user typed is escaped; long client ids wrap anywhere and redirect
// URIs between their parts (breakableUri), so nothing scrolls sideways on a phone and no word of a URI
// is cut in two. A public app has no secret, and its page speaks of none.
import { MAX_APPS_PER_USER, type OwnedApp } from '../../core/apps/owned.ts';
import { MAX_REDIRECT_URIS } from '../../core/apps/redirect-uris.ts';
import { SCOPE_DESCRIPTIONS, SCOPES } from '../../core/apps/scopes.ts';
import { breakableUri, errorBox, escapeHtml, page } from '../../oauth/pages/layout.ts';

const STYLE = `
h1,h2{overflow-wrap:anywhere}
ul.apps{list-style:none;padding:0;margin:0}
ul.apps>li{border-top:1px solid #e4e7ee;padding:1rem 0}
dl.app{display:grid;grid-template-columns:max-content minmax(0,1fr);gap:.35rem .9rem;margin:.5rem 0}
dl.app dt{font-weight:600}
dl.app dd{margin:0;min-width:0}
dl.app ul{margin:0;padding-left:1.1rem}
code{overflow-wrap:anywhere}
.secret{background:#fff7d6;padding:.75rem 1rem;border-radius:8px;overflow-wrap:anywhere}
.inactive{color:#8a1c1c;font-weight:600}
textarea{width:100%;font:1rem/1.4 ui-monospace,monospace;padding:.6rem .8rem;border:1px solid #9aa3b2;border-radius:8px}
fieldset{border:0;padding:0;margin:1rem 0 0;min-width:0}
legend{font-weight:600;padding:0}
label.choice{display:flex;gap:.6rem;align-items:flex-start;font-weight:400;margin:.5rem 0}
label.choice input{margin-top:.35rem;flex:none}
.hint{color:#4b5567;font-size:.9rem;margin:.25rem 0 0}
a.button{display:inline-block;font-size:1.1rem;padding:.75rem 1.4rem;border-radius:8px;margin-top:1.25rem;text-decoration:none;background:#e4e7ee;color:#1d2330}
a.button.primary{background:#2456d6;color:#fff}
button.danger{background:#b42318;color:#fff}
@media (max-width:30rem){dl.app{grid-template-columns:minmax(0,1fr)}dl.app dd{margin-bottom:.4rem}}
`;

/** A page in the developer pages' frame and style; `style`: rules of its own after theirs (the webhook pages'). */
export const developerPage = (title: string, body: string, style = '') => page(title, body, { wide: true, style: STYLE + style });
export const csrfField = (csrf: string) => `<input type="hidden" name="csrf" value="${escapeHtml(csrf)}">`;
const appPath = (clientId: string) => `/account/apps/${encodeURIComponent(clientId)}`;
export const notice = (text: string | undefined) => (text ? `<p role="status">${escapeHtml(text)}</p>` : '');

function details(app: OwnedApp): string {
  const list = (items: string[], show: (item: string) => string) => `<ul>${items.map((i) => `<li><code>${show(i)}</code></li>`).join('')}</ul>`;
  return `<dl class="app">
    <dt>Client ID</dt><dd><code class="client-id">${escapeHtml(app.clientId)}</code></dd>
    <dt>Type</dt><dd>${app.confidential ? 'Confidential (has a client secret)' : 'Public (PKCE only, for apps on people’s devices)'}</dd>
    <dt>Status</dt><dd>${app.active ? 'Active' : '<span class="inactive">Deactivated</span>: gets no tokens'}</dd>
    <dt>Users</dt><dd><span class="grants">${app.activeGrants}</span> with an active grant</dd>
    <dt>Scopes</dt><dd>${list(app.scopes, escapeHtml)}</dd>
    <dt>Redirect URIs</dt><dd class="uris">${list(app.redirectUris, breakableUri)}</dd>
  </dl>`;
}

export function developerAppsPage(opts: { username: string; apps: OwnedApp[]; notice?: string | undefined }): string {
  const items = opts.apps
    .map((a) => `<li><h2><a href="${appPath(a.clientId)}">${escapeHtml(a.name)}</a></h2>${details(a)}</li>`)
    .join('');
  const register =
    opts.apps.length < MAX_APPS_PER_USER
      ? '<a class="button primary" href="/account/apps/new">Register an app</a>'
      : `<p>You have ${MAX_APPS_PER_USER} apps, the most one account may register.</p>`;
  return developerPage(
    'Your apps',
    `${notice(opts.notice)}
     <p>Signed in as <strong>${escapeHtml(opts.username)}</strong>. These are the OAuth apps you registered; people connect them to their accounts.</p>
     ${opts.apps.length ? `<ul class="apps">${items}</ul>` : '<p>You have not registered an app yet.</p>'}
     ${register}
     <p><a href="/account">Back to your account</a></p>`,
  );
}

export type AppForm = { name: string; redirectUris: string; confidential: boolean; scopes: readonly string[] };

export const EMPTY_FORM: AppForm = { name: '', redirectUris: '', confidential: false, scopes: ['profile:read'] };

/** The registration form; `official` is never a field: only the admin CLI makes official apps. */
export function newAppPage(opts: { csrf: string; form: AppForm; error?: string | undefined }): string {
  const f = opts.form;
  const type = (value: 'public' | 'confidential', label: string, hint: string) =>
    `<label class="choice"><input type="radio" name="type" value="${value}"${f.confidential === (value === 'confidential') ? ' checked' : ''}>
       <span>${label}<br><span class="hint">${hint}</span></span></label>`;
  const scopes = SCOPES.map(
    (s) => `<label class="choice"><input type="checkbox" name="scope:${s}" value="on"${f.scopes.includes(s) ? ' checked' : ''}>
       <span><code>${s}</code><br><span class="hint">${escapeHtml(SCOPE_DESCRIPTIONS[s])}</span></span></label>`,
  ).join('');
  return developerPage(
    'Register an app',
    `${errorBox(opts.error)}
     <form method="post" action="/account/apps">
       ${csrfField(opts.csrf)}
       <label for="name">Name</label>
       <input id="name" name="name" type="text" maxlength="100" required value="${escapeHtml(f.name)}">
       <p class="hint">Shown to people when your app asks for access; up to 100 characters.</p>
       <label for="redirect-uris">Redirect URIs</label>
       <textarea id="redirect-uris" name="redirect_uris" rows="3" required spellcheck="false" autocapitalize="none">${escapeHtml(f.redirectUris)}</textarea>
       <p class="hint">One a line, up to ${MAX_REDIRECT_URIS}, matched exactly: https, http on 127.0.0.1, [::1] or localhost, or a private-use scheme such as <code>com.example.app:/callback</code>.</p>
       <fieldset><legend>Type</legend>
         ${type('public', 'Public', 'Runs on people’s devices (mobile, TV, desktop, CLI): no secret, PKCE only.')}
         ${type('confidential', 'Confidential', 'Runs on a server that can keep a client secret.')}
       </fieldset>
       <fieldset><legend>Scopes it may ask for</legend>${scopes}</fieldset>
       <div class="actions"><button type="submit" class="primary">Register app</button></div>
     </form>
     <p><a href="/account/apps">Back to your apps</a></p>`,
  );
}

/** `webhooks`: the app's Webhooks section and its style (pages/app-webhooks.ts). */
export function developerAppPage(opts: { app: OwnedApp; csrf: string; secret?: string | undefined; notice?: string | undefined; webhooks?: { html: string; style: string } }): string {
  const { app } = opts;
  const action = (path: string, label: string, cls = 'secondary') =>
    `<form method="post" action="${appPath(app.clientId)}/${path}">${csrfField(opts.csrf)}<button type="submit" class="${cls}">${label}</button></form>`;
  const secret = opts.secret
    ? `<div class="secret" role="status"><p><strong>Client secret:</strong> <code id="client-secret">${escapeHtml(opts.secret)}</code></p>
         <p>Copy it now: it is shown only this once. If you lose it, rotate the secret to get a new one.</p></div>`
    : '';
  return developerPage(
    app.name,
    `${notice(opts.notice)}${secret}${details(app)}
     <div class="actions">
       ${app.confidential ? action('rotate-secret', 'Rotate secret') : ''}
       ${app.active ? action('deactivate', 'Deactivate') : action('activate', 'Activate')}
       <a class="button" href="${appPath(app.clientId)}/delete">Delete…</a>
     </div>
     <p class="hint">${app.confidential ? 'Rotating makes the old secret stop working at once. ' : ''}Deactivating signs every user of the app out and refuses it new tokens until you activate it again.</p>
     ${opts.webhooks?.html ?? ''}
     <p><a href="/account/apps">Back to your apps</a></p>`,
    opts.webhooks?.style,
  );
}

export function deleteAppPage(opts: { app: OwnedApp; csrf: string }): string {
  const { app } = opts;
  return developerPage(
    `Delete ${app.name}?`,
    `<p>Deleting the app signs its users out at once (${app.activeGrants} with an active grant) and removes it for good: its client ID stops working and cannot be brought back.</p>
     <div class="actions">
       <form method="post" action="${appPath(app.clientId)}/delete">${csrfField(opts.csrf)}<button type="submit" class="danger">Delete ${escapeHtml(app.name)} for good</button></form>
       <a class="button" href="${appPath(app.clientId)}">Keep it</a>
     </div>`,
  );
}
