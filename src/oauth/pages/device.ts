// Device verification pages, rendered by the provider: type the user code (or arrive with it from
// verification_uri_complete), confirm it matches the device, and a done page. The forms the provider
// hands in carry its own CSRF token (xsrf) bound to the browser session.
import type { KoaContextWithOIDC } from 'oidc-provider';
import { errorBox, escapeHtml, page, PAGE_HEADERS } from './layout.ts';

function send(ctx: KoaContextWithOIDC, html: string) {
  for (const [k, v] of Object.entries(PAGE_HEADERS)) ctx.set(k, v);
  ctx.body = html;
}

/** The provider's form with our label and input styling around its user_code field. */
function labelled(form: string): string {
  return form.replace(
    /<input([^>]*name="user_code"[^>]*)>/,
    '<label for="user_code">Code shown on your device</label><input id="user_code" class="code" autocomplete="one-time-code" autocapitalize="characters" spellcheck="false" required$1>',
  );
}

/**
 * A confirmation or resume step from a browser without a session (no cookie, or one that fails its
 * signature): its form secret was never anywhere to check against, so a form shown again could not
 * work either. The provider's error handler has just written a new secret into this session, which
 * was never stored, and would then fail storing it (a bare 500); nothing in it is worth keeping, so it
 * is marked untouched and the user is sent back to the start, which sets a session.
 */
function startAgain(ctx: KoaContextWithOIDC) {
  (ctx.oidc.session as { touched?: boolean }).touched = false;
  const start = ctx.oidc.urlFor('code_verification');
  send(
    ctx,
    page(
      'Connect a device',
      `${errorBox('This page has expired, or your browser did not keep its cookie.')}
       <p><a href="${escapeHtml(start)}">Start again</a> and enter the code your device is showing.</p>`,
    ),
  );
}

export const devicePages = {
  async userCodeInputSource(ctx: KoaContextWithOIDC, form: string, _out?: unknown, err?: { userCode?: string; name?: string }) {
    if (err && (ctx.oidc.session as { new?: boolean } | undefined)?.new) return startAgain(ctx);
    let message: string | undefined;
    if (err && (err.userCode || err.name === 'NoCodeError')) message = 'That code is not valid or has expired. Check your device and try again.';
    else if (err && err.name === 'AbortedError') message = 'The sign-in was cancelled.';
    else if (err) message = 'Something went wrong. Please try again.';
    send(
      ctx,
      page(
        'Connect a device',
        `${errorBox(message)}<p>Enter the code your TV, console or app is showing.</p>${labelled(form)}
         <button type="submit" class="primary" form="op.deviceInputForm">Continue</button>`,
      ),
    );
  },

  async userCodeConfirmSource(ctx: KoaContextWithOIDC, form: string, client: { clientName?: string; clientId: string }, _info: unknown, userCode: string) {
    send(
      ctx,
      page(
        'Confirm the device',
        `<p><strong>${escapeHtml(client.clientName ?? client.clientId)}</strong> wants to connect to your account.</p>
         <p>Check that your device shows this code:</p><p><code class="user-code">${escapeHtml(userCode)}</code></p>
         ${form}
         <div class="actions">
           <button type="submit" class="primary" form="op.deviceConfirmForm">Yes, it matches</button>
           <button type="submit" class="secondary" form="op.deviceConfirmForm" value="yes" name="abort">Cancel</button>
         </div>`,
      ),
    );
  },

  async successSource(ctx: KoaContextWithOIDC) {
    const name = ctx.oidc.client?.clientName ?? 'Your device';
    send(ctx, page('Device connected', `<p>${escapeHtml(name)} is now connected. You can close this page and return to your device.</p>`));
  },
};
