// The body of a media server's webhook, read by its route (the pipeline's body reader leaves these paths
// alone): the JSON payload, wherever the server puts it. Plex posts multipart/form-data with the JSON in
// a `payload` field and, for some events, a thumbnail JPEG file part, which is drained unread; Emby before
// 4.9 posts the same way with a `data` field; Jellyfin's generic destination posts the JSON as the whole
// body, as text/plain unless its user set a header. Limits: the whole request HOOK_BODY_LIMIT (the
// thumbnail counts), the JSON HOOK_PAYLOAD_LIMIT, both within 10 s (413 and 408 as elsewhere); JSON nested
// deeper than the API allows is a 400.
import busboy from 'busboy';
import type { Request } from 'express';
import { ApiError } from '../core/errors.ts';
import { refuseDeepJson } from './json-depth.ts';

/** A whole webhook request: room for Plex's thumbnail, which is read past and never kept. */
const HOOK_BODY_LIMIT = 1024 * 1024;
/** The JSON of a webhook (Plex's metadata of a movie with its whole cast is a few tens of KiB). */
const HOOK_PAYLOAD_LIMIT = 256 * 1024;
const DEADLINE_MS = 10_000;
/** The form fields that carry the JSON: Plex's, then Emby's. */
const PAYLOAD_FIELDS = ['payload', 'data'];

const tooLarge = (what: string, limit: number) => new ApiError('payload_too_large', `${what} is over the ${limit}-byte limit`);
const invalid = (message: string) => new ApiError('invalid_request', message);

function mediaType(req: Request): string {
  return (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
}

function parseJson(req: Request, text: string): unknown {
  refuseDeepJson(req, text, 'The payload');
  try {
    return JSON.parse(text);
  } catch (err) {
    throw invalid(`The payload is not JSON: ${(err as Error).message}`);
  }
}

/** The JSON a form carries in one of PAYLOAD_FIELDS. */
function fromForm(req: Request, fields: Map<string, string>): unknown {
  const field = PAYLOAD_FIELDS.find((f) => fields.has(f));
  if (field === undefined) throw invalid(`The form has no ${PAYLOAD_FIELDS.map((f) => `\`${f}\``).join(' or ')} field`);
  return parseJson(req, fields.get(field)!);
}

/** Reads the request's payload: the parsed JSON, or an ApiError (400, 408, 413). */
export function readHookPayload(req: Request): Promise<unknown> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > HOOK_BODY_LIMIT) return Promise.reject(tooLarge('The request body', HOOK_BODY_LIMIT));
  return new Promise((resolve, reject) => {
    let settled = false;
    const settle = (work: () => unknown) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      req.off('data', count);
      try {
        resolve(work());
      } catch (err) {
        req.unpipe();
        req.pause();
        reject(err);
      }
    };
    const fail = (err: ApiError) => settle(() => {
      throw err;
    });
    const timer = setTimeout(() => fail(new ApiError('request_timeout', `Request body was not received within ${DEADLINE_MS / 1000} seconds`)), DEADLINE_MS);
    let size = 0;
    const count = (chunk: Buffer) => {
      size += chunk.length;
      if (size > HOOK_BODY_LIMIT) fail(tooLarge('The request body', HOOK_BODY_LIMIT));
    };
    req.on('data', count);
    req.once('error', () => fail(invalid('The request body could not be read')));

    if (mediaType(req) === 'multipart/form-data') {
      let form: busboy.Busboy;
      try {
        form = busboy({ headers: req.headers, limits: { fieldNameSize: 100, fieldSize: HOOK_PAYLOAD_LIMIT, fields: 20, files: 4, parts: 24 } });
      } catch (err) {
        return fail(invalid(`The multipart body cannot be read: ${(err as Error).message}`));
      }
      const fields = new Map<string, string>();
      let truncated = false;
      form.on('field', (name, value, info) => {
        if (!PAYLOAD_FIELDS.includes(name) || fields.has(name)) return;
        if (info.valueTruncated) truncated = true;
        fields.set(name, value);
      });
      // Plex's thumbnail (and any other file part): drained, never buffered.
      form.on('file', (_name, stream) => stream.resume());
      form.on('close', () => (truncated ? fail(tooLarge('The payload field', HOOK_PAYLOAD_LIMIT)) : settle(() => fromForm(req, fields))));
      form.on('error', (err) => fail(invalid(`The multipart body cannot be read: ${(err as Error).message}`)));
      req.pipe(form);
      return;
    }
    const chunks: Buffer[] = [];
    let length = 0;
    req.on('data', (chunk: Buffer) => {
      length += chunk.length;
      if (length > HOOK_PAYLOAD_LIMIT) fail(tooLarge('The payload', HOOK_PAYLOAD_LIMIT));
      else chunks.push(chunk);
    });
    req.once('end', () =>
      settle(() => {
        const text = Buffer.concat(chunks, length).toString('utf8');
        if (text.trim() === '') throw invalid('The body is empty: a webhook carries its JSON');
        if (mediaType(req) !== 'application/x-www-form-urlencoded') return parseJson(req, text);
        return fromForm(req, new Map(new URLSearchParams(text)));
      }));
  });
}
