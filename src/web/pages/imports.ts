// The import pages: the upload form with the user's recent imports, and one import's progress (the page
// reloads itself every few seconds while the run goes; no script) and then its summary, with the
// unmatched rows to download and the invalid ones listed with why.
import { formatBytes } from '../../core/import/file-store.ts';
import type { RunView } from '../../core/import/present.ts';
import type { ImportSource } from '../../core/import/records.ts';
import { errorBox, escapeHtml, page } from '../../oauth/pages/layout.ts';

const STYLE = `
h1,h2{overflow-wrap:anywhere}
select,input[type=file]{width:100%;font-size:1.05rem;padding:.6rem .7rem;border:1px solid #9aa3b2;border-radius:8px;background:#fff}
.hint{color:#4b5567;font-size:.9rem;margin:.35rem 0 0}
progress{width:100%;height:1.4rem}
dl.counts{display:grid;grid-template-columns:max-content minmax(0,1fr);gap:.35rem .9rem;margin:1rem 0}
dl.counts dt{font-weight:600}
dl.counts dd{margin:0;min-width:0}
a.button{display:inline-block;font-size:1.1rem;padding:.75rem 1.4rem;border-radius:8px;margin-top:1rem;text-decoration:none;background:#e4e7ee;color:#1d2330}
`;

/** The sources the form offers, as people know them. */
const SOURCE_NAMES: Record<ImportSource, string> = {
  trakt: 'Trakt (full export, JSON)',
  letterboxd: 'Letterboxd (export ZIP)',
  simkl: 'Simkl (backup JSON)',
  own: 'This service (your export)',
};

const STATUS_TEXT: Record<RunView['status'], string> = { queued: 'Waiting to start', running: 'Importing', done: 'Done', failed: 'Failed' };

export const runPath = (id: number | string) => `/account/import/${id}`;

function runsTable(runs: RunView[]): string {
  if (!runs.length) return '<p>No imports yet.</p>';
  const rows = runs
    .map(
      (r) => `<tr>
        <td data-label="File"><a href="${runPath(r.id)}">${escapeHtml(r.fileName || 'file')}</a></td>
        <td data-label="Source">${escapeHtml(SOURCE_NAMES[r.source as ImportSource] ?? r.source)}</td>
        <td data-label="Status">${escapeHtml(STATUS_TEXT[r.status])}${r.status === 'running' ? ` (${r.percent}%)` : ''}</td>
        <td data-label="Started"><time datetime="${r.createdAt}">${r.createdAt.slice(0, 16).replace('T', ' ')}</time></td>
      </tr>`,
    )
    .join('');
  return `<table class="stack"><thead><tr><th>File</th><th>Source</th><th>Status</th><th>Started</th></tr></thead><tbody>${rows}</tbody></table>`;
}

export function importPage(opts: { csrf: string; runs: RunView[]; maxBytes: number; source?: string | undefined; error?: string | undefined }): string {
  const options = (Object.keys(SOURCE_NAMES) as ImportSource[])
    .map((s) => `<option value="${s}"${opts.source === s ? ' selected' : ''}>${escapeHtml(SOURCE_NAMES[s])}</option>`)
    .join('');
  return page(
    'Import your history',
    `${errorBox(opts.error)}
     <p>Bring your watch history, ratings, watchlist, statuses, favourites and lists from another service. Importing the same file again adds nothing twice.</p>
     <form method="post" action="/account/import" enctype="multipart/form-data">
       <input type="hidden" name="csrf" value="${escapeHtml(opts.csrf)}">
       <label for="source">Where the file comes from</label>
       <select id="source" name="source" required><option value="">Choose…</option>${options}</select>
       <label for="file">The exported file</label>
       <input id="file" name="file" type="file" required>
       <p class="hint">Up to ${formatBytes(opts.maxBytes)}.</p>
       <button type="submit" class="primary">Import</button>
     </form>
     <h2>Your imports</h2>
     ${runsTable(opts.runs)}
     <p><a href="/account">Back to your account</a></p>`,
    { wide: true, style: STYLE },
  );
}

function counts(r: RunView): string {
  return `<dl class="counts">
    <dt>Imported</dt><dd id="imported">${r.imported}</dd>
    <dt>Already there</dt><dd id="already-there">${r.alreadyThere}</dd>
    <dt>Unmatched</dt><dd id="unmatched">${r.unmatched}</dd>
    <dt>Invalid</dt><dd id="invalid">${r.invalid}</dd>
  </dl>`;
}

export type InvalidRow = { file: string; row: number; label: string; error: string | null };

export function runPage(r: RunView, invalid: InvalidRow[]): string {
  const going = r.status === 'queued' || r.status === 'running';
  const title = `Import of ${r.fileName || 'your file'}`;
  const where = r.status === 'running' && r.phase === 'checking' ? 'Checking the file…' : `${STATUS_TEXT[r.status]}${going ? ` — ${r.percent}%` : ''}`;
  const progress = going
    ? `<progress max="100" value="${r.percent}" aria-label="Progress">${r.percent}%</progress>
       <p class="hint">Matched so far: ${r.matched}; unmatched: ${r.unmatched}. This page updates itself.</p>`
    : '';
  const failed = r.status === 'failed' ? errorBox(r.error ?? 'The import failed.') : '';
  const download = r.unmatched > 0 ? `<p><a class="button" href="${runPath(r.id)}/unmatched.csv" download>Download the unmatched rows (CSV)</a></p>` : '';
  const invalidList = invalid.length
    ? `<h2>Invalid rows</h2><ul>${invalid.map((i) => `<li>${escapeHtml(i.file)} row ${i.row}: ${escapeHtml(i.label)} — ${escapeHtml(i.error ?? '')}</li>`).join('')}</ul>${
        r.invalid > invalid.length ? `<p class="hint">And ${r.invalid - invalid.length} more.</p>` : ''
      }`
    : '';
  return page(
    title,
    `${failed}<p role="status" id="status">${escapeHtml(where)}</p>
     ${progress}
     <p>From ${escapeHtml(SOURCE_NAMES[r.source as ImportSource] ?? r.source)}, ${formatBytes(r.fileSize)}.</p>
     ${counts(r)}
     ${download}
     ${invalidList}
     <p><a href="/account/import">All your imports</a></p>`,
    { wide: true, style: STYLE, ...(going ? { refreshSeconds: 2 } : {}) },
  );
}

export const runNotFoundPage = () => page('Not found', '<p>There is no such import among yours.</p><p><a href="/account/import">Your imports</a></p>');
