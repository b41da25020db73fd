// /account/import over HTTP as a browser's form posts it: a signed-in session (cookie and CSRF token from
// the hub page), a multipart upload, and polling a run's JSON until it ends.
import type { TestApp } from './app.ts';
import { makeUser, postAccountSignIn, sessionCookie } from './oauth.ts';
import { until } from './wait.ts';

export type Session = { cookie: string; csrf: string; userId: string; username: string };

export async function accountSession(app: TestApp, username: string): Promise<Session> {
  const user = await makeUser(app, username);
  return signedIn(app, { id: user.id, username });
}

/** An existing user's session on the account pages (test users share one password). */
export async function signedIn(app: TestApp, user: { id: string; username: string }): Promise<Session> {
  const res = await postAccountSignIn(app, user.username, 'correct horse battery');
  const cookie = sessionCookie(res.headers);
  const hub = await (await fetch(`${app.url}/account`, { headers: { cookie } })).text();
  return { cookie, csrf: /name="csrf" value="([^"]+)"/.exec(hub)![1]!, userId: user.id, username: user.username };
}

/** Posts the upload form: the fields in the form's order (csrf, source, file), each overridable or left out (null). */
export function upload(
  app: TestApp,
  s: Session,
  file: { content: string | Uint8Array; name?: string } | null,
  fields: { csrf?: string | null; source?: string | null } = {},
): Promise<Response> {
  const form = new FormData();
  const csrf = fields.csrf === undefined ? s.csrf : fields.csrf;
  const source = fields.source === undefined ? 'trakt' : fields.source;
  if (csrf !== null) form.append('csrf', csrf);
  if (source !== null) form.append('source', source);
  if (file) form.append('file', new Blob([file.content]), file.name ?? 'export.jsonl');
  return fetch(`${app.url}/account/import`, { method: 'POST', redirect: 'manual', headers: { cookie: s.cookie }, body: form });
}

/** The run id an accepted upload redirects to. */
export async function uploaded(app: TestApp, s: Session, content: string, name = 'export.jsonl'): Promise<string> {
  const res = await upload(app, s, { content, name });
  if (res.status !== 303) throw new Error(`upload answered ${res.status}: ${await res.text()}`);
  return /^\/account\/import\/(\d+)$/.exec(res.headers.get('location')!)![1]!;
}

export type RunJson = {
  id: number; source: string; status: string; phase: string | null; fileName: string; fileSize: number; percent: number; matched: number;
  imported: number; alreadyThere: number; unmatched: number; invalid: number; records: number | null; error: string | null; createdAt: string; finishedAt: string | null;
};

export async function runStatus(app: TestApp, s: Session, id: string): Promise<{ status: number; body: RunJson }> {
  const res = await fetch(`${app.url}/account/import/${id}/status`, { headers: { cookie: s.cookie } });
  return { status: res.status, body: (await res.json()) as RunJson };
}

/** Polls the run until it is done or failed. */
export async function finished(app: TestApp, s: Session, id: string, timeoutMs = 60_000): Promise<RunJson> {
  let body!: RunJson;
  await until(`run ${id} to finish`, async () => {
    ({ body } = await runStatus(app, s, id));
    return body.status === 'done' || body.status === 'failed';
  }, timeoutMs, 100).catch((err: Error) => {
    throw new Error(`${err.message} (still ${body.status})`, { cause: err });
  });
  return body;
}
