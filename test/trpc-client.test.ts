// First-party clients call the same procedures at /trpc with a typed client built from AppRouter.
import { createTRPCClient, httpLink, TRPCClientError } from '@trpc/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppRouter } from '../src/rpc/app-router.ts';
import { startTestApp, type TestApp } from './helpers/app.ts';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(() => app?.stop());

describe('/trpc', () => {
  it('serves the public procedures with typed calls', async () => {
    const client = createTRPCClient<AppRouter>({ links: [httpLink({ url: `${app.url}/trpc` })] });
    const result = await client.public.catalog.trending.query({ limit: 5 });
    expect(Array.isArray(result.items)).toBe(true);
  });

  it('reports validation errors with the machine code', async () => {
    const client = createTRPCClient<AppRouter>({ links: [httpLink({ url: `${app.url}/trpc` })] });
    const err = await client.public.catalog.search.query({ q: '' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TRPCClientError);
    const data = (err as TRPCClientError<AppRouter>).data as { error?: string; httpStatus?: number };
    expect(data.error).toBe('invalid_request');
    expect(data.httpStatus).toBe(400);
  });
});
