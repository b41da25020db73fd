// /account for a signed-in user: where to go from here (their connected apps, importing from another
// service, the export of their data, the apps they develop when registration is open) and signing out.
import { escapeHtml, page } from '../../oauth/pages/layout.ts';

const STYLE = `ul.hub{list-style:none;padding:0;margin:0}ul.hub li{padding:.6rem 0;border-bottom:1px solid #e4e7ee}ul.hub a{font-weight:600}`;

export function accountHubPage(opts: { username: string; csrf: string; appRegistration: boolean }): string {
  return page(
    'Your account',
    `<p>Signed in as <strong>${escapeHtml(opts.username)}</strong>.</p>
     <ul class="hub">
       <li><a href="/account/connected-apps">Connected apps</a><br>The apps you let into your account, and revoking them.</li>
       <li><a href="/account/import">Import your history</a><br>Your history, ratings, watchlist and lists from Trakt, Letterboxd or Simkl.</li>
       <li><a href="/account/export">Export your data</a><br>Everything your account holds, as one file to keep or take elsewhere.</li>
       ${opts.appRegistration ? '<li><a href="/account/apps">Your apps (developer)</a><br>OAuth apps you register for others to connect.</li>' : ''}
     </ul>
     <form method="post" action="/account/sign-out"><input type="hidden" name="csrf" value="${escapeHtml(opts.csrf)}">
       <button type="submit" class="secondary">Sign out</button></form>`,
    { style: STYLE },
  );
}
