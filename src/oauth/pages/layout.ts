// The frame of every OAuth and account page: server-rendered, no external assets, readable on a phone
// and across a room on a TV, and never framed by another site (clickjacking). The style sheet is inline
// (the pages' CSP allows inline styles and nothing else), so it lives here, once, for every page. The
// account website (src/web/) frames its pages with it too: it sits above this room and imports from it.

/**
 * The headers of every HTML page the service serves (these pages, and the API reference at /docs): never
 * framed by another site (clickjacking: CSP `frame-ancestors` for browsers that read it, X-Frame-Options
 * for older ones), no `<base>` redirecting relative URLs, never cached, no referrer sent on. `contentPolicy`
 * is what the page itself may load; the framing and base rules are added here, so no page can leave them out.
 */
export function htmlPageHeaders(contentPolicy: string): Record<string, string> {
  return {
    'Content-Type': 'text/html; charset=utf-8',
    'X-Frame-Options': 'DENY',
    'Content-Security-Policy': `${contentPolicy}; frame-ancestors 'none'; base-uri 'none'`,
    'Cache-Control': 'no-store',
    'Referrer-Policy': 'no-referrer',
  };
}

export const PAGE_HEADERS = htmlPageHeaders("default-src 'none'; style-src 'unsafe-inline'; img-src 'self' data:");

// Phones (up to 40rem wide): nothing may scroll sideways. Any word breaks where it must (an app name of
// 100 letters, a long username or request id), the frame around the card shrinks, and a table marked
// class="stack" becomes one block per row, each cell under its own label (its data-label attribute),
// since four columns and a button cannot share 390 pixels. Wider screens keep the table, its first
// column (what the row is) held to 30%: a name that may break anywhere would otherwise be given the
// room of its unbroken length, squeezing the others. Button labels break between words only.
const STYLE = `
*{box-sizing:border-box}
body{margin:0;font:18px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;background:#f4f5f7;color:#1d2330;overflow-wrap:anywhere}
main{max-width:34rem;margin:0 auto;padding:2rem 1.25rem}
main.wide{max-width:60rem}
time{white-space:nowrap}
h1{font-size:1.6rem;margin:0 0 1rem}
h2{font-size:1.15rem;margin:1rem 0 .25rem}
.card{background:#fff;border-radius:12px;padding:1.5rem;box-shadow:0 1px 3px rgba(0,0,0,.12)}
label{display:block;font-weight:600;margin:1rem 0 .35rem}
input[type=text],input[type=password]{width:100%;font-size:1.1rem;padding:.7rem .8rem;border:1px solid #9aa3b2;border-radius:8px}
input.code{text-transform:uppercase;letter-spacing:.2em;text-align:center;font-size:1.6rem}
button{font-size:1.1rem;padding:.75rem 1.4rem;border-radius:8px;border:0;cursor:pointer;margin-top:1.25rem;overflow-wrap:normal}
button.primary{background:#2456d6;color:#fff}
button.secondary{background:#e4e7ee;color:#1d2330}
.actions{display:flex;gap:.75rem;flex-wrap:wrap}
.error{background:#fde8e8;color:#8a1c1c;padding:.75rem 1rem;border-radius:8px;margin-bottom:1rem}
ul.scopes{padding-left:1.2rem}
ul.scopes li{margin:.35rem 0}
td>ul.scopes{margin:0}
ul.scope-groups{padding-left:1.2rem;margin:.5rem 0}
details.scopes summary{cursor:pointer;font-weight:600;color:#2456d6;padding:.35rem 0}
code.user-code{font-size:2rem;letter-spacing:.15em}
table{width:100%;border-collapse:collapse}
th,td{text-align:left;padding:.5rem .25rem;border-bottom:1px solid #e4e7ee;vertical-align:top}
table.stack th:first-child{width:30%}
@media (max-width:40rem){
main{padding:1rem .75rem}
.card{padding:1rem}
h1{font-size:1.4rem}
table.stack,table.stack tbody,table.stack tr,table.stack td{display:block}
table.stack thead{display:none}
table.stack tr{border-bottom:1px solid #e4e7ee;padding:.5rem 0}
table.stack td{border:0;padding:.2rem 0}
table.stack td[data-label]::before{content:attr(data-label);display:block;font-size:.85rem;font-weight:600;color:#5a6273}
table.stack button{margin-top:.5rem}
}
@media (min-width:1600px){body{font-size:26px}main{max-width:52rem}}
`;

export function escapeHtml(value: unknown): string {
  return String(value ?? '').replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

/** `style`: CSS of this page only, after the shared rules; `refreshSeconds`: the page reloads itself (no script needed). */
export function page(title: string, body: string, opts: { wide?: boolean; style?: string; refreshSeconds?: number } = {}): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
${opts.refreshSeconds ? `<meta http-equiv="refresh" content="${opts.refreshSeconds}">\n` : ''}<title>${escapeHtml(title)} · Media Tracker</title>
<style>${STYLE}${opts.style ?? ''}</style>
</head>
<body><main${opts.wide ? ' class="wide"' : ''}><h1>${escapeHtml(title)}</h1><div class="card">${body}</div></main></body>
</html>`;
}

const hiddenField = (name: string, value: string) => `<input type="hidden" name="${escapeHtml(name)}" value="${escapeHtml(value)}">`;

/**
 * The username and password form of every sign-in page; `hidden` carries its CSRF token or nonce, and
 * `signUp` where to make an account (unset when sign-ups are closed).
 */
export function signInForm(opts: { action: string; hidden: Record<string, string>; username?: string | undefined; signUp?: string | undefined }): string {
  return `<form method="post" action="${escapeHtml(opts.action)}">
       ${Object.entries(opts.hidden).map(([k, v]) => hiddenField(k, v)).join('')}
       <label for="username">Username</label>
       <input id="username" name="username" type="text" autocomplete="username" autocapitalize="none" spellcheck="false" required value="${escapeHtml(opts.username ?? '')}">
       <label for="password">Password</label>
       <input id="password" name="password" type="password" autocomplete="current-password" required>
       <button type="submit" class="primary">Sign in</button>
     </form>${opts.signUp ? `\n     <p>New here? <a href="${escapeHtml(opts.signUp)}">Create an account</a></p>` : ''}`;
}

/**
 * A URI as text that wraps where a reader expects it to: a line may break after `//` and before each
 * `/`, `.`, `?`, `#`, `&`, `=`, `-` or `_` (a `<wbr>`), so a word of the URI is never cut in two on a
 * phone; only a single piece longer than the whole line still breaks anywhere (the page's
 * `overflow-wrap:anywhere`), rather than scrolling sideways.
 */
export function breakableUri(uri: string): string {
  return uri
    .split(/(?<=\/\/)|(?=[/.?#&=_-])/)
    .map((piece) => escapeHtml(piece))
    .join('<wbr>');
}

export function errorBox(message: string | undefined): string {
  return message ? `<p class="error" role="alert">${escapeHtml(message)}</p>` : '';
}
