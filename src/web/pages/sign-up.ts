// The sign-up page (username, password twice) and the page a closed service shows instead. The form
// carries the login nonce of the sign-in forms, and the authorization to return to, if any.
import { PASSWORD_MIN } from '../../core/accounts/rules.ts';
import { errorBox, escapeHtml, page } from '../../oauth/pages/layout.ts';

export type SignUpPageOptions = { nonce: string; returnTo?: string | undefined; username?: string | undefined; error?: string | undefined };

const hidden = (name: string, value: string | undefined) => (value === undefined ? '' : `<input type="hidden" name="${name}" value="${escapeHtml(value)}">`);

export function signUpPage(opts: SignUpPageOptions): string {
  return page(
    'Create an account',
    `${errorBox(opts.error)}<form method="post" action="/account/sign-up">
       ${hidden('nonce', opts.nonce)}${hidden('return', opts.returnTo)}
       <label for="username">Username</label>
       <input id="username" name="username" type="text" autocomplete="username" autocapitalize="none" spellcheck="false" required maxlength="32" aria-describedby="username-rule" value="${escapeHtml(opts.username ?? '')}">
       <small id="username-rule">3 to 32 letters, digits, "_", "." or "-".</small>
       <label for="password">Password</label>
       <input id="password" name="password" type="password" autocomplete="new-password" required aria-describedby="password-rule">
       <small id="password-rule">At least ${PASSWORD_MIN} characters; any characters will do.</small>
       <label for="confirm">Password again</label>
       <input id="confirm" name="confirm" type="password" autocomplete="new-password" required>
       <button type="submit" class="primary">Create account</button>
     </form>
     <p>Already have an account? <a href="${escapeHtml(opts.returnTo ?? '/account')}">Sign in</a></p>`,
  );
}

export function signUpsClosedPage(): string {
  return page('Sign-ups are closed', '<p>This service does not take new accounts. Ask the person who runs it to make one for you.</p>');
}
