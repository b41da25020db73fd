// Sign-in and consent pages of an authorization in progress (code flow and device flow alike).
import { errorBox, escapeHtml, page, signInForm } from './layout.ts';
import { scopeList } from './scope-list.ts';

const hidden = (name: string, value: unknown) =>
  value === undefined || value === null ? '' : `<input type="hidden" name="${escapeHtml(name)}" value="${escapeHtml(value)}">`;

export function signInPage(opts: { action: string; csrf: string; appName: string; username?: string; error?: string; signUp?: string | undefined }): string {
  return page(
    'Sign in',
    `${errorBox(opts.error)}<p>Sign in to continue to <strong>${escapeHtml(opts.appName)}</strong>.</p>
     ${signInForm({ action: opts.action, hidden: { csrf: opts.csrf }, username: opts.username, signUp: opts.signUp })}`,
  );
}

export type ConsentForm = { action: string; fields: Record<string, unknown> };

export function consentPage(opts: { appName: string; username: string; scopes: string[]; form: ConsentForm }): string {
  const fields = Object.entries(opts.form.fields).map(([k, v]) => hidden(k, v)).join('');
  return page(
    'Allow access?',
    `<p><strong>${escapeHtml(opts.appName)}</strong> wants to act for <strong>${escapeHtml(opts.username)}</strong> and be able to:</p>
     ${scopeList(opts.scopes)}
     <p><small>You can revoke this at any time from your connected apps.</small></p>
     <form method="post" action="${escapeHtml(opts.form.action)}">
       ${fields}
       <div class="actions">
         <button type="submit" class="primary" name="decision" value="approve">Allow</button>
         <button type="submit" class="secondary" name="decision" value="deny">Deny</button>
       </div>
     </form>`,
  );
}
