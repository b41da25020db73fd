// Property-based fuzzing of every operation of both OpenAPI documents, as the running app serves them,
// checking each answer against the document itself. Requests are generated from each operation's
// schemas, partly hostile (NUL characters, huge integers, deep JSON, wrong types, long and odd unicode
// strings), and sent as three callers on the platform API (a token of an official app holding every
// scope, a token holding none, no token) and as the anonymous caller the public API serves. Whatever is
// sent, an answer:
// - is never a 5xx;
// - has a status the operation lists in its `responses`, the media type that response names, and a
//   body valid against that response's schema (openapi-answers.ts): successes their shapes, errors the
//   surface's envelope, the platform's `error` one of the codes of its enum;
// - on the platform API, carries its request id in the body as in X-Service-Request-Id.
// The authorization page (GET and POST /oauth/authorize) is a person's browser: its errors may be the
// HTML page its responses document. A fixed seed makes a run reproducible; the runs per operation keep
// it to a few thousand requests (about 20 s idle, well under a minute on a loaded 2-core machine). The
// file reports how many requests it sent and how many had a status the document does not list.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCOPES } from '../src/core/apps/scopes.ts';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { answerChecker, type DocumentedOperation } from './helpers/openapi-answers.ts';
import { requestArbitrary, send, type FuzzAnswer, type FuzzRequest, type Operation } from './helpers/openapi-requests.ts';
import type { Components } from './helpers/schema-arbitrary.ts';
import { member, platform, seedCatalog, SPIRITED_AWAY, type Member } from './helpers/seed.ts';

// Fixed, so CI runs are reproducible; FUZZ_SEED and FUZZ_RUNS explore further by hand.
const SEED = Number(process.env.FUZZ_SEED ?? 20_261_123);
/** Requests per operation for the caller who may do everything; the others are refused early and need fewer. */
const RUNS = Number(process.env.FUZZ_RUNS ?? 8);
const REFUSED_RUNS = Math.max(1, Math.ceil(RUNS / 2));
/** A longer run by hand gets a deadline to match. */
const DEADLINE_MS = 120_000 * Math.max(1, RUNS / 8);
/** Long generated values would flood a failure report. */
const cut = (text: string) => (text.length > 300 ? `${text.slice(0, 300)}... (${text.length} characters)` : text);

type Doc = { paths: Record<string, Record<string, Operation & DocumentedOperation>>; components?: { schemas?: Components } };
type Caller = 'every scope' | 'no scope' | 'no token';

let app: TestApp;
let fuzzer: Member;
let scopeless: Member;
const sent = { requests: 0, undocumented: 0 };

beforeAll(async () => {
  app = await startTestApp();
  await seedCatalog(app, { shows: 1 });
  // Official, with every scope: no route is closed to the fuzzer before its input is read.
  fuzzer = await member(app, 'fuzzer', [...SCOPES], { official: true });
  scopeless = await member(app, 'scopeless', []);
  // A few rows with small ids, which generated ids often name.
  await platform(app, fuzzer.token, 'POST', '/lists', { name: 'Fuzzed', isPublic: true });
  await platform(app, fuzzer.token, 'POST', '/lists/1/items', { items: [{ type: 'movie', movieDbId: SPIRITED_AWAY }] });
  await platform(app, fuzzer.token, 'POST', '/watch-history', { type: 'movie', movieDbId: SPIRITED_AWAY });
  await platform(app, fuzzer.token, 'POST', '/ratings', { type: 'movie', movieDbId: SPIRITED_AWAY, rating: 8 });
  await platform(app, fuzzer.token, 'POST', '/me/collection', { type: 'movie', movieDbId: SPIRITED_AWAY, format: 'dvd' });
});
afterAll(async () => {
  console.info(`fuzz: ${sent.requests} requests, ${sent.undocumented} with a status their operation does not list (${((100 * sent.undocumented) / Math.max(1, sent.requests)).toFixed(1)}%)`);
  await app?.stop();
});

const BROWSER_PAGES = new Set(['get /oauth/authorize', 'post /oauth/authorize']);

/** Throws, naming the request, unless the answer is one the document says, below 500, with its request id. */
function checkAnswer(surface: 'platform' | 'public', check: ReturnType<typeof answerChecker>, template: string, method: string, r: FuzzRequest, a: FuzzAnswer): void {
  const where = `${r.method} ${cut(r.path)}${r.body === undefined ? '' : ` body ${cut(r.body)}`} -> ${a.status} ${cut(a.text)}`;
  sent.requests++;
  const problem = check(template, method, a);
  if (problem?.startsWith(`status ${a.status} is not in`)) sent.undocumented++;
  if (a.status >= 500) throw new Error(`server error: ${where}`);
  if (problem) throw new Error(`${problem}: ${where}`);
  const html = BROWSER_PAGES.has(`${method} ${template}`) && a.contentType.startsWith('text/html');
  if (surface === 'platform' && a.status >= 400 && !html) {
    const body = JSON.parse(a.text) as Record<string, unknown>;
    if (body.request_id !== a.requestId) throw new Error(`request_id is not X-Service-Request-Id: ${where}`);
  }
}

const CASES: Array<[surface: 'platform' | 'public', base: string, caller: Caller]> = [
  ['platform', '/api/platform/v1', 'every scope'],
  ['platform', '/api/platform/v1', 'no scope'],
  ['platform', '/api/platform/v1', 'no token'],
  ['public', '/api/public/v1', 'no token'],
];

describe.each(CASES)('fuzzing the %s API (%s)', (surface, base, caller) => {
  it('answers every operation as its document says, never with a 5xx', async () => {
    const doc = (await (await fetch(`${app.url}${base}/openapi.json`)).json()) as Doc;
    const components = doc.components?.schemas ?? {};
    const check = answerChecker(doc);
    const token = caller === 'every scope' ? fuzzer.token : caller === 'no scope' ? scopeless.token : null;
    const numRuns = caller === 'every scope' || surface === 'public' ? RUNS : REFUSED_RUNS;
    let operations = 0;
    const failures: string[] = [];
    for (const [template, item] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(item)) {
        operations++;
        const requests = requestArbitrary(base, template, method, op, components, token);
        const run = await fc.check(
          fc.asyncProperty(requests, async (r) => checkAnswer(surface, check, template, method, r, await send(app.url, r))),
          { seed: SEED, numRuns },
        );
        // Every failing operation is reported, each with its smallest failing request (after shrinking).
        if (run.failed) failures.push(`${method.toUpperCase()} ${base}${template} (seed ${run.seed}, path ${run.counterexamplePath}): ${(run.errorInstance as Error).message}`);
      }
    }
    expect(failures).toEqual([]);
    // Every operation of the document was fuzzed (83 when this was written: 78 platform, 5 public).
    expect(operations).toBeGreaterThanOrEqual(surface === 'platform' ? 70 : 5);
  }, DEADLINE_MS);
});
