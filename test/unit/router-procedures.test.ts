// Pins the shape of a tRPC router's procedure table as src/rpc/router-procedures.ts reads it (tRPC has
// no public accessor for it): every procedure by dotted path, sub-routers' included, with its type, its
// meta and its input parsers. Fails when tRPC moves or reshapes that table.
import { initTRPC } from '@trpc/server';
import { generateOpenApiDocument, normalizePath } from 'trpc-to-openapi';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { appRouter, platformRouter, publicRouter } from '../../src/rpc/app-router.ts';
import { listProcedures } from '../../src/rpc/router-procedures.ts';
import type { Meta } from '../../src/rpc/trpc.ts';

describe('listProcedures', () => {
  it('lists every procedure of a router by dotted path, with its type, meta and input parsers in order', () => {
    const t = initTRPC.meta<Meta>().create();
    const id = z.object({ id: z.string() });
    const body = z.object({ rating: z.number() });
    const rateMeta: Meta = { openapi: { method: 'POST', path: '/titles/{id}/rating' }, scope: 'ratings:write' };
    const router = t.router({
      ping: t.procedure.query(() => 'pong'),
      titles: t.router({
        rate: t.procedure.meta(rateMeta).input(id).input(body).mutation(() => null),
        deep: t.router({ watch: t.procedure.subscription(async function* () {}) }),
      }),
    });
    expect(listProcedures(router)).toEqual([
      { name: 'ping', type: 'query', meta: undefined, inputs: [] },
      { name: 'titles.rate', type: 'mutation', meta: rateMeta, inputs: [id, body] },
      { name: 'titles.deep.watch', type: 'subscription', meta: undefined, inputs: [] },
    ]);
    expect(listProcedures(router)[1]!.inputs[0]).toBe(id);
  });

  it("lists the service's routers whole: /trpc's names are the surfaces' under theirs, each with its meta, and the REST routes are the ones trpc-to-openapi documents", () => {
    const surfaces = { public: publicRouter, platform: platformRouter };
    const all = listProcedures(appRouter);
    expect(all.map((p) => p.name)).toEqual(Object.entries(surfaces).flatMap(([surface, r]) => listProcedures(r).map((p) => `${surface}.${p.name}`)));
    expect(all.length).toBeGreaterThan(50);
    for (const p of all) {
      // Queries and mutations have a REST route; a subscription has none (trpc-to-openapi serves none)
      // and so stays out of the documents (the comparison below).
      if (p.type === 'subscription') expect(p.meta?.openapi, p.name).toBeUndefined();
      else expect(p.meta?.openapi, p.name).toBeDefined();
    }
    expect(all.filter((p) => p.type === 'subscription').map((p) => p.name)).toEqual(['platform.playback.events']);
    for (const router of Object.values(surfaces)) {
      const listed = listProcedures(router)
        .filter((p) => p.meta?.openapi)
        .map((p) => `${p.meta!.openapi!.method.toLowerCase()} ${normalizePath(p.meta!.openapi!.path)}`);
      const doc = generateOpenApiDocument(router, { title: 't', version: '0', baseUrl: 'http://127.0.0.1' });
      const documented = Object.entries(doc.paths ?? {}).flatMap(([path, item]) => Object.keys(item as object).map((method) => `${method} ${path}`));
      expect(listed.sort()).toEqual(documented.sort());
    }
  });
});
