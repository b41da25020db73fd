// Media servers posting to a receiver, as they do: Plex a multipart form (its JSON in `payload`, and a
// JPEG thumbnail part on play), Jellyfin its JSON as text/plain, Emby its JSON as application/json (or,
// before 4.9, in a multipart `data` field). Payloads are the fixtures of test/fixtures/media-servers,
// the shapes each server documents, with the fields a test changes.
import fs from 'node:fs';
import path from 'node:path';
import type { TestApp } from './app.ts';
import { platform } from './seed.ts';

const FIXTURES = path.resolve(import.meta.dirname, '../fixtures/media-servers');

type Json = Record<string, unknown>;

/** A fixture, parsed (a new copy each time). */
export function fixture(name: string): Json {
  return JSON.parse(fs.readFileSync(path.join(FIXTURES, `${name}.json`), 'utf8')) as Json;
}

/** `base` with `patch` merged in, one level into objects (Plex's Metadata, Emby's Item and PlaybackInfo). */
export function patched(base: Json, patch: Json): Json {
  const out: Json = { ...base };
  for (const [k, v] of Object.entries(patch)) {
    const was = out[k];
    out[k] = v && typeof v === 'object' && !Array.isArray(v) && was && typeof was === 'object' ? { ...(was as Json), ...(v as Json) } : v;
  }
  return out;
}

export type HookAnswer = { status: number; body: Json; headers: Headers };

async function answer(res: Response): Promise<HookAnswer> {
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? (JSON.parse(text) as Json) : {} };
}

/** A small JPEG-like part, as Plex attaches to media.play. */
export const THUMB = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), Buffer.alloc(20_000, 7), Buffer.from([0xff, 0xd9])]);

/** Plex: multipart/form-data, `payload` then (optionally) a `thumb` file part. */
export async function postPlex(url: string, payload: Json | string, thumb?: Buffer): Promise<HookAnswer> {
  const form = new FormData();
  form.append('payload', typeof payload === 'string' ? payload : JSON.stringify(payload));
  if (thumb) form.append('thumb', new Blob([new Uint8Array(thumb)], { type: 'image/jpeg' }), 'thumb.jpg');
  return answer(await fetch(url, { method: 'POST', body: form }));
}

/** Emby before 4.9: multipart/form-data with the JSON in `data`. */
export async function postEmbyForm(url: string, payload: Json): Promise<HookAnswer> {
  const form = new FormData();
  form.append('data', JSON.stringify(payload));
  return answer(await fetch(url, { method: 'POST', body: form }));
}

/** Jellyfin's generic destination (text/plain unless set) and Emby 4.9 (application/json): the JSON as the body. */
export async function postJson(url: string, payload: Json | string, contentType = 'application/json'): Promise<HookAnswer> {
  return answer(await fetch(url, { method: 'POST', headers: { 'content-type': contentType }, body: typeof payload === 'string' ? payload : JSON.stringify(payload) }));
}

export type Created = { id: number; secret: string; urls: { plex: string; jellyfin: string; emby: string } } & Json;

/** A receiver of the token's user (the token needs playback:write). */
export async function createReceiver(app: Pick<TestApp, 'url'>, token: string, body: Json = { label: 'Home server' }): Promise<Created> {
  const res = await platform(app, token, 'POST', '/me/media-server-hooks', body);
  if (res.status !== 200) throw new Error(`receiver not created: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body as Created;
}
