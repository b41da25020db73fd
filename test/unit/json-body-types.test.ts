// Pins what src/rest/json-body-types.ts undoes in trpc-to-openapi: its HTTP handler sets `coerce` on the
// number, boolean, bigint and date fields of a procedure's input on each request, JSON bodies included,
// and has no option to leave bodies alone. The first test fails when the library stops doing so (the
// pinning can then go); the second, when the pinning no longer keeps a JSON body's types.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { initTRPC } from '@trpc/server';
import { createOpenApiNodeHttpHandler, type OpenApiMeta, type OpenApiRouter } from 'trpc-to-openapi';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { keepJsonBodyTypes } from '../../src/rest/json-body-types.ts';

/** A router with one POST route (a path parameter, and body fields with and without an explicit z.coerce), fresh schemas each time. */
function makeRouter() {
  const t = initTRPC.meta<OpenApiMeta>().create();
  const input = z.object({ id: z.number(), count: z.number(), flag: z.boolean().optional(), given: z.coerce.number().optional() });
  const output = z.object({ id: z.number(), count: z.number(), flag: z.boolean().optional(), given: z.number().optional() });
  const router = t.router({
    echo: t.procedure
      .meta({ openapi: { method: 'POST', path: '/things/{id}' } })
      .input(input)
      .output(output)
      .mutation(({ input }) => input),
  });
  return { router: router as OpenApiRouter, count: input.shape.count };
}

/** Serves `router` as the facade does, posts `body` to /things/7 and returns the answer. */
async function post(router: OpenApiRouter, body: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
  const handler = createOpenApiNodeHttpHandler({ router });
  const server = http.createServer((req, res) => void handler(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const { port } = server.address() as AddressInfo;
    const res = await fetch(`http://127.0.0.1:${port}/things/7`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  } finally {
    server.close();
  }
}

describe("trpc-to-openapi's coercion of JSON bodies", () => {
  it('coerces a body field from a string, by setting `coerce` on the schema the procedure declared', async () => {
    const { router, count } = makeRouter();
    expect(count._zod.def.coerce).toBeFalsy();
    expect(await post(router, { count: '129', flag: 'false' })).toEqual({ status: 200, body: { id: 7, count: 129, flag: true } });
    expect(count._zod.def.coerce).toBe(true);
  });

  it('is undone by keepJsonBodyTypes for body fields only: "129" is a 400, a path parameter and an explicit z.coerce still coerce', async () => {
    const { router, count } = makeRouter();
    keepJsonBodyTypes(router);
    expect((await post(router, { count: '129' })).status).toBe(400);
    expect((await post(router, { count: 1, flag: 'false' })).status).toBe(400);
    expect(await post(router, { count: 129, flag: false, given: '5' })).toEqual({ status: 200, body: { id: 7, count: 129, flag: false, given: 5 } });
    expect(count._zod.def.coerce).toBe(false);
  });
});
