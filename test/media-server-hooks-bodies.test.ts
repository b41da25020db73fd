// What a receiver's URL does with bodies, as a server, a broken proxy, a fuzzer or an attacker sends
// them: Plex's thumbnail read past (a thumbnail larger than any payload is fine), the request, the
// payload field and a JSON body each over their cap 413, a slow body 408, garbage and mutated payloads
// never a 5xx (a 400 naming what is wrong, or a 200 ignoring what is not tracked), no NUL reaching the
// database, and the secret never in the access log.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { rawRequest } from './helpers/http.ts';
import { memoryLog } from './helpers/memory-log.ts';
import { createReceiver, fixture, patched, postJson, postPlex, THUMB, type Created } from './helpers/media-servers.ts';
import { member, seedCatalog } from './helpers/seed.ts';

const { log, lines } = memoryLog();
let app: TestApp;
let receiver: Created;

beforeAll(async () => {
  app = await startTestApp({}, { log });
  await seedCatalog(app, { shows: 1 });
  const m = await member(app, 'hooks_bodies', ['playback:write']);
  receiver = await createReceiver(app, m.token);
});
afterAll(() => app?.stop());

const KIB = 1024;
const pathOf = (url: string) => new URL(url).pathname;

function expectEnvelope(res: { status: number; body: Record<string, unknown> }, status: number, code: string) {
  expect(res.status).toBe(status);
  expect(res.body).toEqual({ error: code, message: expect.any(String), request_id: expect.stringMatching(/^req_/) });
}

/** A multipart body spelled by hand: its parts as given, then the closing boundary. */
function multipart(parts: Array<{ name: string; filename?: string; type?: string; data: Buffer | string }>, boundary = 'PlexBoundary7d93') {
  const chunks: Buffer[] = [];
  for (const p of parts) {
    const disposition = `form-data; name="${p.name}"${p.filename ? `; filename="${p.filename}"` : ''}`;
    chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: ${disposition}\r\n${p.type ? `Content-Type: ${p.type}\r\n` : ''}\r\n`), Buffer.from(p.data), Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { body: Buffer.concat(chunks), contentType: `multipart/form-data; boundary=${boundary}` };
}

async function raw(body: Buffer | string, headers: Record<string, string | number>, url = receiver.urls.plex) {
  const res = await rawRequest(app.url, { method: 'POST', path: pathOf(url), headers, body });
  let parsed: Record<string, unknown>;
  try {
    parsed = res.json() as Record<string, unknown>;
  } catch {
    parsed = { unparsed: res.body };
  }
  return { status: res.status, body: parsed, headers: res.headers };
}

describe('sizes', () => {
  it('reads past Plex\'s thumbnail, even one larger than any payload may be', async () => {
    const res = await postPlex(receiver.urls.plex, patched(fixture('plex-movie'), { event: 'media.play' }), Buffer.alloc(600 * KIB, 1));
    expect(res.status).toBe(200);
    expect((await postPlex(receiver.urls.plex, patched(fixture('plex-movie'), { event: 'media.play' }), THUMB)).status).toBe(200);
  });

  it('a request over 1 MiB is 413 payload_too_large, declared or streamed, and the connection closes', async () => {
    const { body, contentType } = multipart([
      { name: 'payload', data: JSON.stringify(fixture('plex-movie')) },
      { name: 'thumb', filename: 'thumb.jpg', type: 'image/jpeg', data: Buffer.alloc(KIB * KIB, 1) },
    ]);
    const declared = await raw(body, { 'content-type': contentType, 'content-length': body.length });
    expectEnvelope(declared, 413, 'payload_too_large');
    expect(declared.headers.connection).toBe('close');
    const streamed = await rawRequest(app.url, {
      method: 'POST',
      path: pathOf(receiver.urls.plex),
      headers: { 'content-type': contentType, 'transfer-encoding': 'chunked' },
      sendBody: (req) => {
        for (let i = 0; i < body.length; i += 64 * KIB) req.write(body.subarray(i, i + 64 * KIB));
        req.end();
      },
    });
    expect(streamed.status).toBe(413);
    expect(streamed.json()).toMatchObject({ error: 'payload_too_large' });
  });

  it('a payload field over 256 KiB, and a JSON body over 256 KiB, are 413', async () => {
    const big = JSON.stringify({ ...fixture('plex-movie'), pad: 'x'.repeat(256 * KIB) });
    const form = multipart([{ name: 'payload', data: big }]);
    expectEnvelope(await raw(form.body, { 'content-type': form.contentType }), 413, 'payload_too_large');
    expectEnvelope(await raw(big, { 'content-type': 'application/json' }, receiver.urls.jellyfin), 413, 'payload_too_large');
    // Exactly at the cap is read (and refused only for what it says).
    const atCap = JSON.stringify({ NotificationType: 'ItemAdded', pad: '' });
    const padded = atCap.replace('"pad":""', `"pad":"${'x'.repeat(256 * KIB - Buffer.byteLength(atCap))}"`);
    expect(Buffer.byteLength(padded)).toBe(256 * KIB);
    expect((await raw(padded, { 'content-type': 'text/plain' }, receiver.urls.jellyfin)).status).toBe(200);
  });

  it('a body not complete within 10 seconds is 408 request_timeout', async () => {
    const res = await rawRequest(app.url, {
      method: 'POST',
      path: pathOf(receiver.urls.jellyfin),
      headers: { 'content-type': 'text/plain', 'content-length': 500 },
      sendBody: (req) => req.write('{"NotificationType":'), // and never the rest
    });
    expect(res.status).toBe(408);
    expect(res.json()).toMatchObject({ error: 'request_timeout' });
    expect(res.headers.connection).toBe('close');
  }, 20_000);
});

describe('garbage', () => {
  it('answers what is no webhook with 400 invalid_request naming it', async () => {
    const cases: Array<[string, Buffer | string, string]> = [
      [receiver.urls.jellyfin, 'not json at all', 'text/plain'],
      [receiver.urls.jellyfin, '', 'text/plain'],
      [receiver.urls.jellyfin, '[1,2,3]', 'application/json'],
      [receiver.urls.jellyfin, '"PlaybackStart"', 'application/json'],
      [receiver.urls.emby, '{"Event": 42}', 'application/json'],
      [receiver.urls.plex, '{"event": "media.play"}', 'application/json'],
      [receiver.urls.plex, multipart([{ name: 'other', data: '{}' }]).body, multipart([]).contentType],
      [receiver.urls.plex, multipart([{ name: 'payload', data: '{not json' }]).body, multipart([]).contentType],
      [receiver.urls.plex, '--x\r\nbroken', 'multipart/form-data'],
      [receiver.urls.plex, Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 1, 2]), 'image/jpeg'],
      [receiver.urls.emby, `${'['.repeat(100)}${']'.repeat(100)}`, 'application/json'],
      [receiver.urls.emby, 'data=%7Bnot', 'application/x-www-form-urlencoded'],
    ];
    for (const [url, body, type] of cases) {
      const res = await raw(body, { 'content-type': type }, url);
      expect({ body: String(body).slice(0, 40), status: res.status }).toEqual({ body: String(body).slice(0, 40), status: 400 });
      expectEnvelope(res, 400, 'invalid_request');
    }
  });

  it('a media event without what it needs names the field', async () => {
    const noSeries = patched(fixture('jellyfin-episode'), { SeriesName: undefined });
    const res = await postJson(receiver.urls.jellyfin, noSeries);
    expectEnvelope(res, 400, 'invalid_request');
    expect(res.body.message).toContain('SeriesName');
    const noSeason = patched(fixture('emby-episode'), { Item: { ParentIndexNumber: undefined } });
    expect((await postJson(receiver.urls.emby, noSeason)).body.message).toMatch(/season/);
  });

  it('refuses a NUL anywhere in the payload before it reaches the database', async () => {
    const res = await postJson(receiver.urls.jellyfin, patched(fixture('jellyfin-movie'), { Name: 'Spirited\u0000Away', Provider_tmdb: undefined, Provider_imdb: undefined }));
    expectEnvelope(res, 400, 'invalid_request');
    expect(res.body.message).toContain('NUL');
  });

  it('takes an Emby form posted as application/x-www-form-urlencoded (`data`)', async () => {
    const body = new URLSearchParams({ data: JSON.stringify(fixture('emby-test')) }).toString();
    expect((await raw(body, { 'content-type': 'application/x-www-form-urlencoded' }, receiver.urls.emby)).body).toEqual({ ok: true, outcome: 'ignored', reason: 'test' });
  });

  it('never answers a 5xx to mutated payloads of any server', async () => {
    const bases = {
      plex: ['plex-movie', 'plex-episode', 'plex-track'],
      jellyfin: ['jellyfin-movie', 'jellyfin-episode'],
      emby: ['emby-movie', 'emby-episode'],
    } as const;
    const anything = fc.oneof(
      fc.constant(undefined), fc.constant(null), fc.boolean(), fc.integer(), fc.double(), fc.string(), fc.constantFrom('', '-1', '1e309', 'tt', 'tmdb://', '99999999999'),
      fc.array(fc.string(), { maxLength: 3 }), fc.dictionary(fc.string(), fc.string(), { maxKeys: 3 }),
    );
    const paths = ['event', 'NotificationType', 'Event', 'Metadata', 'Item', 'PlaybackInfo', 'ItemType', 'Metadata.type', 'Metadata.viewOffset', 'Metadata.duration', 'Metadata.Guid', 'Metadata.guid',
      'Metadata.parentIndex', 'Metadata.index', 'Item.Type', 'Item.RunTimeTicks', 'Item.ProviderIds', 'Item.IndexNumber', 'PlaybackInfo.PositionTicks', 'RunTimeTicks', 'PlaybackPositionTicks',
      'SeasonNumber', 'EpisodeNumber', 'EpisodeNumberEnd', 'Year', 'UtcTimestamp', 'Date', 'Account', 'User', 'Provider_tmdb', 'Name', 'ItemId'];
    const events = ['media.play', 'media.pause', 'media.stop', 'media.scrobble', 'PlaybackStart', 'PlaybackProgress', 'PlaybackStop', 'playback.start', 'playback.stop'];
    await fc.assert(
      fc.asyncProperty(fc.constantFrom('plex', 'jellyfin', 'emby'), fc.nat(), fc.array(fc.tuple(fc.constantFrom(...paths), anything), { minLength: 1, maxLength: 4 }), fc.constantFrom(...events), async (kind, pick, mutations, event) => {
        const names = bases[kind];
        const payload = fixture(names[pick % names.length]!);
        if (kind === 'plex') payload.event = event;
        else if (kind === 'jellyfin') payload.NotificationType = event;
        else payload.Event = event;
        for (const [path, value] of mutations) {
          const [head, tail] = path.split('.');
          if (tail === undefined) payload[head!] = value;
          else if (payload[head!] && typeof payload[head!] === 'object') (payload[head!] as Record<string, unknown>)[tail] = value;
        }
        const url = receiver.urls[kind];
        const res = kind === 'plex' ? await postPlex(url, payload) : await postJson(url, payload);
        expect([200, 202, 400], JSON.stringify({ payload, body: res.body })).toContain(res.status);
      }),
      { numRuns: 150 },
    );
  }, 120_000);
});

describe('the access log', () => {
  it('shows a receiver\'s path with {secret} in place of the secret, whatever the answer', async () => {
    await postJson(receiver.urls.emby, fixture('emby-test'));
    await raw('x'.repeat(10), { 'content-type': 'text/plain' }, receiver.urls.emby);
    await rawRequest(app.url, { method: 'POST', path: `${pathOf(receiver.urls.emby)}/`, headers: {}, body: '' });
    const logged = JSON.stringify(lines);
    expect(logged).not.toContain(receiver.secret);
    expect(lines.filter((l) => l.path === '/hooks/media-server/{secret}/emby').map((l) => l.status)).toEqual(expect.arrayContaining([200, 400]));
    expect(lines.some((l) => l.route === 'POST /hooks/media-server/{secret}/{kind}')).toBe(true);
  });
});
