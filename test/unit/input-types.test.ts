// Pins what src/rest/input-types.ts undoes in trpc-to-openapi, and what it does instead. The library's
// HTTP handler sets `coerce` on the number, boolean, bigint and date fields of a procedure's input on each
// request (bodies included: "false" reads as true) and has no option to leave them alone. The first test
// fails when the library stops doing so (the pinning can then go); the second, when the schemas a REST
// call touched no longer keep their types for every other caller; the third, when the reader no longer
// turns a REST call's query and path text (and only that) into the input's numbers and booleans.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { initTRPC } from '@trpc/server';
import { createOpenApiNodeHttpHandler, type OpenApiMeta, type OpenApiRouter } from 'trpc-to-openapi';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { restInputTypes } from '../../src/rest/input-types.ts';

/** A POST route (a path parameter, body fields) and a GET route (query fields), fresh schemas each time. */
function makeRouter() {
  const t = initTRPC.context<{ readRestText?: (procedure: string, raw: unknown) => unknown }>().meta<OpenApiMeta>().create();
  // As the service's base procedure (src/rpc/trpc.ts) does: the facade's reader runs on the raw input.
  const base = t.procedure.use(({ ctx, path, getRawInput, next }) => {
    const read = ctx.readRestText;
    return read ? next({ getRawInput: async () => read(path, await getRawInput()) }) : next();
  });
  const body = z.object({ id: z.number(), count: z.number(), flag: z.boolean().optional() });
  const query = z.object({ limit: z.number().int().default(20), unread: z.boolean().optional(), q: z.string().optional() }).strict();
  const router = t.router({
    things: t.router({
      echo: base.meta({ openapi: { method: 'POST', path: '/things/{id}' } }).input(body).output(body).mutation(({ input }) => input),
      list: base.meta({ openapi: { method: 'GET', path: '/things' } }).input(query).output(query).query(({ input }) => input),
    }),
  });
  return { router: router as OpenApiRouter, count: body.shape.count, limit: query.shape.limit.unwrap() };
}

/** Serves `router` as the facade does (the reader in the context when given) and sends one request. */
async function send(router: OpenApiRouter, method: string, path: string, body?: unknown, readRestText?: ReturnType<typeof restInputTypes>) {
  const handler = createOpenApiNodeHttpHandler({ router, createContext: () => ({ readRestText }) });
  const server = http.createServer((req, res) => void handler(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const { port } = server.address() as AddressInfo;
    const init = body === undefined ? { method } : { method, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) };
    const res = await fetch(`http://127.0.0.1:${port}${path}`, init);
    const answer = (await res.json()) as Record<string, unknown>;
    return res.status === 200 ? { status: 200, body: answer } : { status: res.status, messages: (answer.issues as { message: string }[]).map((i) => i.message) };
  } finally {
    server.close();
  }
}

describe("trpc-to-openapi's coercion", () => {
  it('coerces a body field from a string, by setting `coerce` on the schema the procedure declared', async () => {
    const { router, count } = makeRouter();
    expect(count._zod.def.coerce).toBeFalsy();
    expect(await send(router, 'POST', '/things/7', { count: '129', flag: 'false' })).toEqual({ status: 200, body: { id: 7, count: 129, flag: true } });
    expect(count._zod.def.coerce).toBe(true);
  });

  it('is pinned off by restInputTypes on every field: the schemas keep their types for any other caller', async () => {
    const { router, count, limit } = makeRouter();
    const read = restInputTypes(router);
    await send(router, 'GET', '/things?limit=5', undefined, read);
    await send(router, 'POST', '/things/7', { count: 1 }, read);
    expect([count._zod.def.coerce, limit._zod.def.coerce]).toEqual([false, false]);
    expect(limit.safeParse('5').success).toBe(false);
    expect((await send(router, 'POST', '/things/7', { count: '129' }, read)).status).toBe(400);
    expect((await send(router, 'POST', '/things/7', { count: 1, flag: 'false' }, read)).status).toBe(400);
  });
});

describe('the reader of REST text', () => {
  const { router } = makeRouter();
  const read = restInputTypes(router);

  it('reads query and path text into numbers and booleans', async () => {
    expect(await send(router, 'GET', '/things?limit=5&unread=false&q=7', undefined, read)).toEqual({ status: 200, body: { limit: 5, unread: false, q: '7' } });
    expect(await send(router, 'GET', '/things?unread=1', undefined, read)).toEqual({ status: 200, body: { limit: 20, unread: true } });
    expect(await send(router, 'POST', '/things/7', { count: 129, flag: false }, read)).toEqual({ status: 200, body: { id: 7, count: 129, flag: false } });
  });

  it('leaves other text for the schema to refuse, and body fields as sent', async () => {
    for (const bad of ['five', '', '0x10', 'Infinity', '5px']) {
      expect(await send(router, 'GET', `/things?limit=${encodeURIComponent(bad)}`, undefined, read), bad).toEqual({ status: 400, messages: ['Invalid input: expected number, received string'] });
    }
    expect((await send(router, 'GET', '/things?unread=yes', undefined, read)).status).toBe(400);
    expect((await send(router, 'POST', '/things/seven', { count: 1 }, read)).status).toBe(400);
    expect((await send(router, 'POST', '/things/7', { count: '129' }, read)).status).toBe(400);
  });

  it('reads the text of the procedure it is asked about only, and leaves JSON input alone', () => {
    expect(read('things.list', { limit: '5' })).toEqual({ limit: 5 });
    expect(read('things.echo', { id: '7', count: '1' })).toEqual({ id: 7, count: '1' });
    expect(read('things.other', { limit: '5' })).toEqual({ limit: '5' });
    expect(read('things.list', ['5'])).toEqual(['5']);
  });
});
