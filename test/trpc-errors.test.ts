// /trpc errors carry no stack trace and no file path, in any mode: this process runs with NODE_ENV=test,
// where tRPC's default (as with NODE_ENV unset or `development`) would put the stack in `data.stack`.
// An internal failure is logged server-side with its stack, under the request id.
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { query } from '../src/core/db/sql.ts';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { member, type Member } from './helpers/seed.ts';

let app: TestApp;
let alice: Member;
const logLines: Record<string, unknown>[] = [];

beforeAll(async () => {
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) logLines.push(JSON.parse(line));
      done();
    },
  });
  app = await startTestApp({}, { log: pino({ level: 'info' }, sink) });
  alice = await member(app, 'errors', ['lists:read']);
});
afterAll(() => app?.stop());

/** Anything that points into the server's code: a stack frame, a source path, a file name with a line. */
function expectNoInternals(text: string): void {
  expect(text).not.toMatch(/stack/i);
  expect(text).not.toContain('/work/');
  expect(text).not.toContain('node_modules');
  expect(text).not.toMatch(/\.ts:\d+/);
  expect(text).not.toMatch(/\bat [\w.<>]+ \(/);
}

async function trpcGet(path: string, token?: string): Promise<{ status: number; text: string; requestId: string | null }> {
  const res = await fetch(`${app.url}/trpc/${path}`, { headers: token ? { authorization: `Bearer ${token}` } : {} });
  return { status: res.status, text: await res.text(), requestId: res.headers.get('x-service-request-id') };
}

describe('/trpc error bodies', () => {
  it('an internal error: code and a generic message only; the stack goes to the log', async () => {
    // The mode that leaked: anything but production is tRPC's development default.
    expect(process.env.NODE_ENV).not.toBe('production');
    // The table behind the invitations read disappears (this file's own database): a real database
    // failure deep in core, with a long stack through src/ and node_modules/.
    await query(app.db.orm.em.fork(), { text: 'alter table list_member rename to list_member_gone', params: [] });
    const res = await trpcGet('platform.lists.invitations', alice.token);
    expect(res.status).toBe(500);
    expect(JSON.parse(res.text)).toEqual({
      error: {
        message: 'Temporary server failure',
        code: -32603,
        data: { code: 'INTERNAL_SERVER_ERROR', httpStatus: 500, path: 'platform.lists.invitations', error: 'server_error', request_id: res.requestId },
      },
    });
    expectNoInternals(res.text);

    const logged = logLines.find((l) => l.msg === 'procedure failed');
    expect(logged).toBeDefined();
    expect(logged!.request_id).toBe(res.requestId);
    const err = logged!.err as { message: string; stack: string };
    expect(err.message).toContain('list_member');
    expect(err.stack).toMatch(/\.ts:\d+/);
  });

  it('a validation error: the machine code and the field, nothing else', async () => {
    const res = await trpcGet(`public.catalog.search?input=${encodeURIComponent('{"q":""}')}`);
    expect(res.status).toBe(400);
    expect(JSON.parse(res.text)).toEqual({
      error: {
        message: 'q: must not be empty',
        code: -32600,
        data: { code: 'BAD_REQUEST', httpStatus: 400, path: 'public.catalog.search', error: 'invalid_request', request_id: res.requestId },
      },
    });
    expectNoInternals(res.text);
  });

  it('a batch with both: neither carries a stack', async () => {
    const res = await trpcGet(`platform.lists.invitations,public.catalog.search?batch=1&input=${encodeURIComponent('{"1":{"q":""}}')}`, alice.token);
    const answers = JSON.parse(res.text) as Array<{ error: { data: Record<string, unknown> } }>;
    expect(answers.map((a) => a.error.data.error)).toEqual(['server_error', 'invalid_request']);
    expectNoInternals(res.text);
  });
});
