// /account/export: what the export holds, and the button that downloads it.
import { EXPORT_FORMAT, EXPORT_VERSION } from '../../core/export/schema.ts';
import { errorBox, escapeHtml, page } from '../../oauth/pages/layout.ts';

export function accountExportPage(opts: { username: string; csrf: string; error?: string | undefined }): string {
  return page(
    'Export your data',
    `${errorBox(opts.error)}
     <p>Download everything your account <strong>${escapeHtml(opts.username)}</strong> holds as one JSON file: your profile and
     preferences, watch history, ratings, favourites, show statuses, watchlist, lists with their items, collection and
     Continue Watching. Every title is named by all the ids we know, with its name and year, so other services can match it.</p>
     <p>The file's format is <code>${EXPORT_FORMAT}</code>, version ${EXPORT_VERSION}. Importing it into an account here brings all of it back.</p>
     <form method="post" action="/account/export"><input type="hidden" name="csrf" value="${escapeHtml(opts.csrf)}">
       <button type="submit" class="primary">Download my data</button></form>
     <p><a href="/account">Back to your account</a></p>`,
  );
}
