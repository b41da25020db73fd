// /account/import: a signed-in user uploads an export file from another service (or this one's), and
// watches its run (src/core/import/run.ts) until the summary. The upload is multipart, read as a stream
// (busboy) straight into the run's stored chunks: the CSRF token and the source must come before the
// file in the form (a browser sends fields in the form's order), and a file over IMPORT_MAX_BYTES is
// refused with 413 and nothing kept. Uploads count in the `import-upload` bucket (per user, always on).
// Another user's run is 404 for its page, its JSON and its download.
import busboy from 'busboy';
import type { NextFunction, Request, Response, Router } from 'express';
import { strictRouter } from '../../rest/routing.ts';
import type Provider from 'oidc-provider';
import type { MikroORM } from '@mikro-orm/postgresql';
import { findUserById } from '../../core/accounts/service.ts';
import { retryText } from '../../core/accounts/sign-in.ts';
import { ApiError } from '../../core/errors.ts';
import { csvLine } from '../../core/import/csv.ts';
import { FileTooLarge, formatBytes } from '../../core/import/file-store.ts';
import { presentRun } from '../../core/import/present.ts';
import { IMPORT_SOURCES, type ImportSource } from '../../core/import/records.ts';
import { runRows, userRun, userRuns } from '../../core/import/repository.ts';
import { receiveFile } from '../../core/import/run.ts';
import { FailureLimits, rateLimitHeaders, type RateLimits } from '../../core/limits/limiter.ts';
import { limitById, type Bucket } from '../../core/limits/table.ts';
import { browserSession, validSessionCsrf, type BrowserSession } from '../../oauth/browser-session.ts';
import { loginNonce } from './account-session.ts';
import { accountSignInPage } from '../pages/account.ts';
import { importPage, runNotFoundPage, runPage, runPath } from '../pages/imports.ts';
import { PAGE_HEADERS, page } from '../../oauth/pages/layout.ts';

const IMPORT_PATH = '/account/import';

/** `signUp`: where the sign-in page links to make an account; unset when sign-ups are closed. */
type Deps = { orm: MikroORM; provider: Provider; limits: RateLimits; key: string; secure: boolean; maxBytes: number; signUp?: string | undefined };

const send = (res: Response, status: number, html: string) => void res.status(status).set(PAGE_HEADERS).send(html);

/** Room for the multipart framing and the small fields around the file. */
const FORM_OVERHEAD = 64 * 1024;

const RECENT_RUNS = 20;
const INVALID_SHOWN = 50;
const CSV_PAGE = 1000;

const isSource = (s: unknown): s is ImportSource => typeof s === 'string' && (IMPORT_SOURCES as readonly string[]).includes(s);
const isRunId = (s: string) => /^[1-9][0-9]{0,17}$/.test(s);

type Refusal = { status: number; message: string; source?: string | undefined };

export function importRoutes(deps: Deps): Router {
  const r = strictRouter();
  const em = () => deps.orm.em.fork();
  const failures = new FailureLimits(deps.limits);

  /** Pages: the signed-in user, or the sign-in form (coming back here). */
  const view = (fn: (req: Request, res: Response, session: BrowserSession) => Promise<void>) => (req: Request, res: Response, next: NextFunction) =>
    (async () => {
      const session = await browserSession(deps, req, res);
      const user = session ? await findUserById(em(), session.userId) : null;
      if (!session || !user) return send(res, 200, accountSignInPage({ nonce: loginNonce(res, deps.secure), next: IMPORT_PATH, signUp: deps.signUp }));
      await fn(req, res, session);
    })().catch(next);

  /** The user's run named in the path, or undefined (not theirs, or no such run). */
  const ownRun = async (req: Request, session: BrowserSession | undefined) => {
    const id = String(req.params.id);
    if (!session || !isRunId(id)) return undefined;
    const row = await userRun(em(), session.userId, id);
    return row && row.status !== 'receiving' ? row : undefined;
  };

  const showForm = async (res: Response, session: BrowserSession, status: number, refusal?: Refusal) => {
    const runs = (await userRuns(em(), session.userId, RECENT_RUNS)).map(presentRun);
    send(res, status, importPage({ csrf: session.csrf, runs, maxBytes: deps.maxBytes, source: refusal?.source, error: refusal?.message }));
  };

  r.get(IMPORT_PATH, view((_req, res, session) => showForm(res, session, 200)));

  r.post(IMPORT_PATH, (req, res, next) => {
    (async () => {
      const session = await browserSession(deps, req, res);
      if (!session) return refuseAndClose(req, res, 403, page('Something went wrong', `<p>Your session has expired. <a href="${IMPORT_PATH}">Sign in again</a>.</p>`));
      const declared = Number(req.headers['content-length']);
      if (Number.isFinite(declared) && declared > deps.maxBytes + FORM_OVERHEAD) {
        return refuseWithForm(req, res, session, { status: 413, message: `The file is over the ${formatBytes(deps.maxBytes)} limit.` });
      }
      const bucket: Bucket = { limit: limitById('import-upload'), key: session.userId };
      const blocked = await failures.blocked([bucket]);
      if (blocked) {
        res.set(rateLimitHeaders(blocked));
        return refuseWithForm(req, res, session, { status: 429, message: `Too many imports in the last hour. ${retryText(blocked.retryAfter ?? 1)}` });
      }
      const outcome = await receive(req, session, bucket);
      if ('runId' in outcome) return void res.redirect(303, runPath(outcome.runId));
      await showForm(res, session, outcome.status, outcome);
    })().catch(next);
  });

  const refuseWithForm = async (req: Request, res: Response, session: BrowserSession, refusal: Refusal) => {
    res.setHeader('Connection', 'close');
    res.once('finish', () => setImmediate(() => req.socket.destroy()));
    await showForm(res, session, refusal.status, refusal);
  };

  /** Reads the form to its end, storing the file as a new run; the run, or why not. */
  const receive = (req: Request, session: BrowserSession, bucket: Bucket): Promise<{ runId: string } | Refusal> =>
    new Promise((resolve, reject) => {
      let form: busboy.Busboy;
      try {
        // busboy stops the file one byte past the cap (it marks a file that reaches its limit truncated) and discards the rest.
        form = busboy({ headers: req.headers, limits: { files: 1, fields: 5, fieldSize: 1024, parts: 8, fileSize: deps.maxBytes + 1 } });
      } catch {
        return resolve({ status: 400, message: 'Send the form as a file upload (multipart/form-data).' });
      }
      const fields: Record<string, string> = {};
      let stored: Promise<{ runId: string } | Refusal> | undefined;
      form.on('field', (name, value) => (fields[name] = value));
      form.on('file', (name, stream, info) => {
        if (stored || name !== 'file') return void stream.resume();
        const source = fields.source;
        if (!validSessionCsrf(session, fields.csrf)) {
          stored = Promise.resolve({ status: 403, message: 'The form has expired. Load the page again and retry.' });
          return void stream.resume();
        }
        if (!isSource(source)) {
          stored = Promise.resolve({ status: 400, message: 'Choose where the file comes from.' });
          return void stream.resume();
        }
        stored = failures
          .failed([bucket])
          .then(() => receiveFile(em(), { userId: session.userId, source, fileName: info.filename ?? 'file', stream: capped(stream, deps.maxBytes), maxBytes: deps.maxBytes }))
          .then(({ runId }) => ({ runId }))
          .catch((err: unknown) => {
            if (err instanceof FileTooLarge) return { status: 413, message: `${err.message}.`, source };
            throw err;
          });
      });
      form.on('close', () => {
        if (!stored) return resolve({ status: 400, message: 'Choose a file to import.', source: fields.source });
        stored.then(resolve, reject);
      });
      form.on('error', (err: unknown) => {
        // The upload was cut short or is not well-formed: whatever was stored goes with its run.
        (stored ?? Promise.resolve()).catch(() => undefined).finally(() => resolve({ status: 400, message: `The upload could not be read: ${(err as Error).message}.` }));
      });
      req.pipe(form);
    });

  r.get(`${IMPORT_PATH}/:id`, view(async (req, res, session) => {
    const row = await ownRun(req, session);
    if (!row) return send(res, 404, runNotFoundPage());
    const invalid = row.invalid > 0 ? await runRows(em(), row.id, 'invalid', '0', INVALID_SHOWN) : [];
    send(res, 200, runPage(presentRun(row), invalid));
  }));

  // The run's progress as JSON, for scripts and pages that poll.
  r.get(`${IMPORT_PATH}/:id/status`, (req, res, next) => {
    (async () => {
      const row = await ownRun(req, await browserSession(deps, req, res));
      if (!row) throw new ApiError('not_found', 'There is no such import among yours');
      res.set('Cache-Control', 'no-store').json(presentRun(row));
    })().catch(next);
  });

  // The unmatched rows as CSV, streamed a page at a time.
  r.get(`${IMPORT_PATH}/:id/unmatched.csv`, (req, res, next) => {
    (async () => {
      const row = await ownRun(req, await browserSession(deps, req, res));
      if (!row) return send(res, 404, runNotFoundPage());
      res.status(200).set({
        'Content-Type': 'text/csv; charset=utf-8',
        'Content-Disposition': `attachment; filename="import-${row.id}-unmatched.csv"`,
        'Cache-Control': 'no-store',
        'X-Content-Type-Options': 'nosniff',
      });
      res.write(csvLine(['kind', 'file', 'row', 'title']));
      let after = '0';
      for (;;) {
        const rows = await runRows(em(), row.id, 'unmatched', after, CSV_PAGE);
        for (const u of rows) res.write(csvLine([u.kind, u.file, u.row, u.label]));
        if (rows.length < CSV_PAGE) break;
        after = String(rows.at(-1)!.id);
      }
      res.end();
    })().catch(next);
  });

  return r;
}

/**
 * The file as busboy hands it, up to the cap; past it, read to its end (so the form's end is reached and
 * the answer can be sent) and then refused.
 */
async function* capped(stream: NodeJS.ReadableStream, maxBytes: number): AsyncGenerator<Uint8Array> {
  let size = 0;
  for await (const data of stream) {
    size += (data as Uint8Array).byteLength;
    if (size <= maxBytes) yield data as Uint8Array;
  }
  if (size > maxBytes) throw new FileTooLarge(maxBytes);
}

/** Answers at once without reading the body, and closes the connection once the answer is out. */
function refuseAndClose(req: Request, res: Response, status: number, html: string): void {
  res.setHeader('Connection', 'close');
  res.once('finish', () => setImmediate(() => req.socket.destroy()));
  send(res, status, html);
}
