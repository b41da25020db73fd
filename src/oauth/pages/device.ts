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

export const devicePages = {
  async userCodeInputSource(ctx: KoaContextWithOIDC, form: string, _out?: unknown, err?: { userCode?: string; name?: string }) {
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
