// Property-based fuzzing of every route of both OpenAPI documents, as the running app serves them:
// requests generated from each operation's schemas, partly hostile (NUL characters, huge integers,
// deep JSON, wrong types, long and odd unicode strings), with a valid bearer token where the route
// needs one. Whatever is sent, the answer is never a 5xx, and every error is the surface's envelope:
// platform `{error, message, request_id}` (strings; request_id also in X-Service-Request-Id), public
// `{message}`. The one exception is the authorization page (GET and POST /oauth/authorize): a person's
// browser shows it, and an error there is an HTML page (OAuth 2.0 never redirects to a redirect_uri it
// could not verify), still never a 5xx. A fixed seed makes a run reproducible; RUNS requests per route
// keep it to a few seconds.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCOPES } from '../src/core/apps/scopes.ts';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { requestArbitrary, send, type FuzzAnswer, type FuzzRequest, type Operation } from './helpers/openapi-requests.ts';
import type { Components } from './helpers/schema-arbitrary.ts';
import { member, platform, seedCatalog, SPIRITED_AWAY, type Member } from './helpers/seed.ts';

// Fixed, so CI runs are reproducible; FUZZ_SEED and FUZZ_RUNS explore further by hand.
const SEED = Number(process.env.FUZZ_SEED ?? 20_261_123);
const RUNS = Number(process.env.FUZZ_RUNS ?? 8);
/** A longer run by hand gets a deadline to match (the default of 8 requests per route takes well under 120 s). */
const DEADLINE_MS = 120_000 * Math.max(1, RUNS / 8);
const BROWSER_PAGES = new Set(['GET /api/platform/v1/oauth/authorize', 'POST /api/platform/v1/oauth/authorize']);
/** Long generated values would flood a failure report. */
const cut = (text: string) => (text.length > 300 ? `${text.slice(0, 300)}... (${text.length} characters)` : text);

type Doc = { paths: Record<string, Record<string, Operation>>; components?: { schemas?: Components } };

let app: TestApp;
let fuzzer: Member;

beforeAll(async () => {
  app = await startTestApp();
  await seedCatalog(app, { shows: 1 });
  // Official, with every scope: no route is closed to the fuzzer before its input is read.
  fuzzer = await member(app, 'fuzzer', [...SCOPES], { official: true });
  // A few rows with small ids, which generated ids often name.
  await platform(app, fuzzer.token, 'POST', '/lists', { name: 'Fuzzed', isPublic: true });
  await platform(app, fuzzer.token, 'POST', '/lists/1/items', { items: [{ type: 'movie', movieDbId: SPIRITED_AWAY }] });
  await platform(app, fuzzer.token, 'POST', '/watch-history', { type: 'movie', movieDbId: SPIRITED_AWAY });
  await platform(app, fuzzer.token, 'POST', '/ratings', { type: 'movie', movieDbId: SPIRITED_AWAY, rating: 8 });
  await platform(app, fuzzer.token, 'POST', '/me/collection', { type: 'movie', movieDbId: SPIRITED_AWAY, format: 'dvd' });
});
afterAll(() => app?.stop());

/** Throws, naming the request, unless the answer is below 500 and any error body is the envelope. */
function checkAnswer(surface: 'platform' | 'public', route: string, r: FuzzRequest, a: FuzzAnswer): void {
  const where = `${r.method} ${cut(r.path)}${r.body === undefined ? '' : ` body ${cut(r.body)}`} -> ${a.status} ${cut(a.text)}`;
  if (a.status >= 500) throw new Error(`server error: ${where}`);
  if (a.status < 400) return;
  if (BROWSER_PAGES.has(route) && a.contentType.startsWith('text/html')) return;
  if (!a.contentType.startsWith('application/json')) throw new Error(`error is not JSON (${a.contentType}): ${where}`);
  const body = JSON.parse(a.text) as Record<string, unknown>;
  if (surface === 'public') {
    if (Object.keys(body).join() !== 'message' || typeof body.message !== 'string') throw new Error(`not {message}: ${where}`);
    return;
  }
  if (typeof body.error !== 'string' || typeof body.message !== 'string' || typeof body.request_id !== 'string') throw new Error(`not the envelope: ${where}`);
  if (body.request_id !== a.requestId) throw new Error(`request_id is not X-Service-Request-Id: ${where}`);
}

describe.each([
  ['platform', '/api/platform/v1'],
  ['public', '/api/public/v1'],
] as const)('fuzzing the %s API', (surface, base) => {
  it('answers every route without a 5xx, errors in the envelope', async () => {
    const doc = (await (await fetch(`${app.url}${base}/openapi.json`)).json()) as Doc;
    const components = doc.components?.schemas ?? {};
    let routes = 0;
    const failures: string[] = [];
    for (const [template, item] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(item)) {
        routes++;
        const route = `${method.toUpperCase()} ${base}${template}`;
        const requests = requestArbitrary(base, template, method, op, components, fuzzer.token);
        const run = await fc.check(
          fc.asyncProperty(requests, async (r) => checkAnswer(surface, route, r, await send(app.url, r))),
          { seed: SEED, numRuns: RUNS },
        );
        // Every failing route is reported, each with its smallest failing request (after shrinking).
        if (run.failed) failures.push(`${route} (seed ${run.seed}, path ${run.counterexamplePath}): ${(run.errorInstance as Error).message}`);
      }
    }
    expect(failures).toEqual([]);
    // Every route of the document was fuzzed (81 when this was written: 76 platform, 5 public).
    expect(routes).toBeGreaterThanOrEqual(surface === 'platform' ? 70 : 5);
  }, DEADLINE_MS);
});
