// The webhook pages of a developer app: the Webhooks section of the app's page (each subscription with
// its status, the reason and time of a pause, and its last delivery), the form that adds or edits one
// (URL and a checkbox per kind), one subscription with its actions, its secret once and the outcome of a
// test message, the delete confirmation, and the delivery log. Everything a user or a receiver wrote (a
// URL, a pause reason, an error) is escaped; URLs wrap between their parts (breakableUri).
import type { OwnedApp } from '../../core/apps/owned.ts';
import { URL_MAX } from '../../core/webhooks/destination.ts';
import { CHANGE_RESOURCES } from '../../core/changes/resources.ts';
import { REVOKED_KIND, WEBHOOK_KINDS, type WebhookKind } from '../../core/webhooks/kinds.ts';
import { DELIVERY_LOG_KEEP, WEBHOOKS_PER_APP, type DeliveriesPage, type TestResult, type Webhook } from '../../core/webhooks/schemas.ts';
import { breakableUri, errorBox, escapeHtml } from '../../oauth/pages/layout.ts';
import { when } from './account.ts';
import { csrfField, developerPage, notice } from './developer-apps.ts';

const STYLE = `
h3{font-size:1.05rem;margin:.25rem 0;overflow-wrap:anywhere}
section.webhooks{border-top:1px solid #e4e7ee;margin-top:1.5rem;padding-top:.5rem}
ul.hooks{list-style:none;padding:0;margin:0}
ul.hooks>li{border-top:1px solid #e4e7ee;padding:.75rem 0}
ul.hooks>li:first-child{border-top:0}
input[type=url]{width:100%;font:1rem/1.4 ui-monospace,monospace;padding:.7rem .8rem;border:1px solid #9aa3b2;border-radius:8px}
label.choice input:disabled+span{color:#5a6273}
.paused{color:#8a1c1c;font-weight:600}
.outcome{padding:.75rem 1rem;border-radius:8px;overflow-wrap:anywhere}
.outcome.good{background:#e3f4e8}
.outcome.bad{background:#fde8e8;color:#8a1c1c}
td code{overflow-wrap:anywhere}
table.deliveries th:first-child{width:auto}
table.deliveries th,table.deliveries td.n,table.deliveries td.type code{white-space:nowrap;overflow-wrap:normal}
nav.pages{display:flex;gap:1.5rem;flex-wrap:wrap;margin-top:1rem}
`;

/** What each kind of message carries, as the form describes it. */
const KIND_TEXT: Record<WebhookKind, string> = {
  history: 'Watch history: entries added, changed or removed',
  ratings: 'Ratings',
  favourites: 'Favourites',
  show_status: 'Show statuses',
  lists: 'Lists',
  list_items: 'Items of lists',
  list_likes: 'Likes of lists',
  collection: 'Collection',
  playback: 'Continue Watching: playback progress',
  profile: 'Profile',
  preferences: 'Preferences',
  notifications: 'Notifications',
  notification_preferences: 'Notification preferences',
  trophies: 'Trophies',
  'authorization.revoked': 'A user disconnected the app (its grant revoked)',
};

export const appPath = (clientId: string) => `/account/apps/${encodeURIComponent(clientId)}`;
export const webhookPath = (clientId: string, id: string) => `${appPath(clientId)}/webhooks/${encodeURIComponent(id)}`;

const kindList = (kinds: readonly string[]) => kinds.map((k) => `<code>${escapeHtml(k)}</code>`).join(', ');

/** The HTTP status or the error of an attempt, as one short text. */
const outcomeText = (status: number | null, error: string | null) => (error ? error : `HTTP ${status}`);

function statusText(h: Webhook): string {
  if (h.status === 'paused') {
    return `<span class="paused">Paused</span> since ${when(h.pausedAt ?? h.updatedAt)}: ${escapeHtml(h.pausedReason ?? 'no reason recorded')}. Nothing is sent until you resume it.`;
  }
  if (h.failures > 0) return `Active, failing: ${h.failures} attempt${h.failures === 1 ? '' : 's'} failed in a row; the next at ${when(h.nextAttemptAt)}`;
  return 'Active';
}

function lastDelivery(h: Webhook): string {
  if (!h.lastAttemptAt) return 'None yet';
  const success = h.lastSuccessAt && h.lastSuccessAt !== h.lastAttemptAt ? `; last success ${when(h.lastSuccessAt)}` : '';
  return `${when(h.lastAttemptAt)}: ${escapeHtml(outcomeText(h.lastStatus, h.lastError))}${success}`;
}

function details(h: Webhook, withUrl: boolean): string {
  return `<dl class="app">
    ${withUrl ? `<dt>URL</dt><dd><code class="webhook-url">${breakableUri(h.url)}</code></dd>` : ''}
    <dt>Kinds</dt><dd class="kinds">${kindList(h.kinds)}</dd>
    <dt>Status</dt><dd class="status">${statusText(h)}</dd>
    <dt>Last delivery</dt><dd class="last-delivery">${lastDelivery(h)}</dd>
  </dl>`;
}

/** The Webhooks section of the app's page, and the style it needs there. */
export function webhooksSection(opts: { app: OwnedApp; webhooks: Webhook[]; notice?: string | undefined }): { html: string; style: string } {
  const { app } = opts;
  const items = opts.webhooks
    .map((h) => `<li><h3><a href="${webhookPath(app.clientId, h.id)}">${breakableUri(h.url)}</a></h3>${details(h, false)}</li>`)
    .join('');
  const add =
    opts.webhooks.length < WEBHOOKS_PER_APP
      ? `<a class="button" href="${appPath(app.clientId)}/webhooks/new">Add a webhook</a>`
      : `<p>The app has ${WEBHOOKS_PER_APP} webhooks, the most an app may hold.</p>`;
  const html = `<section class="webhooks" aria-labelledby="webhooks-heading">
    <h2 id="webhooks-heading">Webhooks</h2>
    ${notice(opts.notice)}
    <p class="hint">Signed messages posted to your server as the app’s users’ data changes, for the users whose grant lets the app read it.</p>
    ${opts.webhooks.length ? `<ul class="hooks">${items}</ul>` : '<p>No webhooks yet.</p>'}
    ${add}
  </section>`;
  return { html, style: STYLE };
}

export type WebhookForm = { url: string; kinds: readonly string[] };

export const EMPTY_WEBHOOK_FORM: WebhookForm = { url: '', kinds: [] };

/** The kinds' checkboxes: one field per kind (the form parser refuses repeats); those the app's scopes rule out are shown disabled. */
function kindChoices(app: OwnedApp, checked: readonly string[]): string {
  const allowed = new Set<string>(app.scopes);
  return WEBHOOK_KINDS.map((k) => {
    // The read scope a user's grant needs for the kind (the change feed's); the revocation needs none.
    const scope = k === REVOKED_KIND ? null : CHANGE_RESOURCES[k];
    const usable = scope === null || allowed.has(scope);
    const hint = scope === null ? 'Needs no scope.' : usable ? `Sent for users whose grant holds <code>${scope}</code>.` : `Needs <code>${scope}</code>, which this app may not ask for.`;
    return `<label class="choice"><input type="checkbox" name="kind:${k}" value="on"${checked.includes(k) && usable ? ' checked' : ''}${usable ? '' : ' disabled'}>
       <span><code>${k}</code> ${escapeHtml(KIND_TEXT[k])}<br><span class="hint">${hint}</span></span></label>`;
  }).join('');
}

/** The form that adds a webhook (`hook` absent) or changes one. */
export function webhookFormPage(opts: { app: OwnedApp; csrf: string; form: WebhookForm; hook?: Webhook | undefined; error?: string | undefined }): string {
  const { app, hook, form } = opts;
  const action = hook ? `${webhookPath(app.clientId, hook.id)}/edit` : `${appPath(app.clientId)}/webhooks`;
  const back = hook ? `<a href="${webhookPath(app.clientId, hook.id)}">Back to the webhook</a>` : `<a href="${appPath(app.clientId)}">Back to ${escapeHtml(app.name)}</a>`;
  return developerPage(
    hook ? 'Change the webhook' : `Add a webhook to ${app.name}`,
    `${errorBox(opts.error)}
     <form method="post" action="${action}">
       ${csrfField(opts.csrf)}
       <label for="url">URL</label>
       <input id="url" name="url" type="url" maxlength="${URL_MAX}" required spellcheck="false" autocapitalize="none" value="${escapeHtml(form.url)}">
       <p class="hint">Where messages are posted: https, with no user name, password or fragment.</p>
       <fieldset><legend>Kinds of change to send</legend>${kindChoices(app, form.kinds)}</fieldset>
       <div class="actions"><button type="submit" class="primary">${hook ? 'Save' : 'Add webhook'}</button></div>
     </form>
     <p>${back}</p>`,
    STYLE,
  );
}

function testOutcome(t: TestResult | undefined): string {
  if (!t) return '';
  const took = `in ${t.durationMs} ms`;
  return t.delivered
    ? `<div class="outcome good" role="status" id="test-outcome"><p><strong>Test message delivered:</strong> HTTP ${t.status} ${took}.</p></div>`
    : `<div class="outcome bad" role="status" id="test-outcome"><p><strong>Test message not delivered:</strong> ${escapeHtml(outcomeText(t.status, t.error))} ${took}.</p></div>`;
}

/** One webhook: its state, its secret once, the outcome of a test once, and its actions. */
export function webhookPage(opts: { app: OwnedApp; hook: Webhook; csrf: string; secret?: string | undefined; test?: TestResult | undefined; notice?: string | undefined }): string {
  const { app, hook } = opts;
  const path = webhookPath(app.clientId, hook.id);
  const action = (to: string, label: string, cls = 'secondary') => `<form method="post" action="${path}/${to}">${csrfField(opts.csrf)}<button type="submit" class="${cls}">${label}</button></form>`;
  const secret = opts.secret
    ? `<div class="secret" role="status"><p><strong>Signing secret:</strong> <code id="webhook-secret">${escapeHtml(opts.secret)}</code></p>
         <p>Copy it now: it is shown only this once. Your server checks each message’s <code>webhook-signature</code> with it (Standard Webhooks). If you lose it, rotate the secret.</p></div>`
    : '';
  return developerPage(
    `Webhook of ${app.name}`,
    `${notice(opts.notice)}${secret}${testOutcome(opts.test)}
     ${details(hook, true)}
     <div class="actions">
       ${action('test', 'Send test', 'primary')}
       ${hook.status === 'paused' ? action('resume', 'Resume') : ''}
       ${action('rotate-secret', 'Rotate secret')}
       <a class="button" href="${path}/edit">Change…</a>
       <a class="button" href="${path}/delete">Delete…</a>
     </div>
     <p class="hint">A test message (<code>webhook.test</code>) goes at once, paused or not, and changes nothing. Resuming sends what came while it was paused, from where it stopped. After a rotation the old secret signs beside the new one for a day, so your server can switch without losing messages.</p>
     <nav class="pages" aria-label="Webhook"><a href="${path}/deliveries">Delivery log</a><a href="${appPath(app.clientId)}">Back to ${escapeHtml(app.name)}</a></nav>`,
    STYLE,
  );
}

export function deleteWebhookPage(opts: { app: OwnedApp; hook: Webhook; csrf: string }): string {
  const { app, hook } = opts;
  const path = webhookPath(app.clientId, hook.id);
  return developerPage(
    'Delete the webhook?',
    `<p>Nothing more is sent to <code>${breakableUri(hook.url)}</code>, and its delivery log goes with it. Adding it again makes a new webhook with a new secret, which starts with the changes made after it.</p>
     <div class="actions">
       <form method="post" action="${path}/delete">${csrfField(opts.csrf)}<button type="submit" class="danger">Delete the webhook for good</button></form>
       <a class="button" href="${path}">Keep it</a>
     </div>`,
    STYLE,
  );
}

/** A page of the delivery log, newest first; `first`: it is the newest page. */
export function deliveriesPage(opts: { app: OwnedApp; hook: Webhook; page: DeliveriesPage; first: boolean }): string {
  const { app, hook } = opts;
  const path = webhookPath(app.clientId, hook.id);
  const rows = opts.page.items
    .map(
      (d) => `<tr>
        <td data-label="Time (UTC)">${when(d.at)}</td>
        <td data-label="Type" class="type"><code>${escapeHtml(d.type)}</code></td>
        <td data-label="User">${d.userId ? `<code>${escapeHtml(d.userId)}</code>` : '(test)'}</td>
        <td data-label="Attempt" class="n">${d.attempt}</td>
        <td data-label="Status" class="n">${d.status ?? 'none'}</td>
        <td data-label="Error">${d.error ? escapeHtml(d.error) : ''}</td>
        <td data-label="Duration" class="n">${d.durationMs} ms</td>
      </tr>`,
    )
    .join('');
  const table = opts.page.items.length
    ? `<table class="stack deliveries"><thead><tr><th>Time (UTC)</th><th>Type</th><th>User</th><th>Attempt</th><th>Status</th><th>Error</th><th>Duration</th></tr></thead><tbody>${rows}</tbody></table>`
    : `<p>${opts.first ? 'Nothing sent yet.' : 'No older attempts.'}</p>`;
  const links = [
    ...(opts.first ? [] : [`<a href="${path}/deliveries">Newest attempts</a>`]),
    ...(opts.page.nextBefore ? [`<a href="${path}/deliveries?before=${encodeURIComponent(opts.page.nextBefore)}">Older attempts</a>`] : []),
    `<a href="${path}">Back to the webhook</a>`,
  ];
  return developerPage(
    'Delivery log',
    `<p>Attempts to post to <code>${breakableUri(hook.url)}</code>, newest first; the last ${DELIVERY_LOG_KEEP.toLocaleString('en')} are kept.</p>
     ${table}
     <nav class="pages" aria-label="Delivery log pages">${links.join('')}</nav>`,
    STYLE,
  );
}
