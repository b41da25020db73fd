// Both OpenAPI documents: valid OpenAPI 3.1 by a real validator, the contract's version, and every error
// response referencing the error envelope.
import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from './helpers/app.ts';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(() => app?.stop());

type Doc = { openapi: string; info: { version: string }; paths: Record<string, Record<string, { responses: Record<string, { content?: Record<string, { schema: { $ref?: string } }> }> }>> };

describe.each([
  ['platform', '/api/platform/v1/openapi.json', '#/components/schemas/Error'],
  ['public', '/api/public/v1/openapi.json', '#/components/schemas/PublicError'],
])('%s document', (_name, path, envelopeRef) => {
  let doc: Doc;
  beforeAll(async () => {
    const res = await fetch(`${app.url}${path}`);
    expect(res.status).toBe(200);
    doc = (await res.json()) as Doc;
  });

  it('is valid OpenAPI 3.1', async () => {
    const validator = new Validator();
    const result = await validator.validate(doc as never);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(doc.openapi).toMatch(/^3\.1\./);
    expect(validator.version).toBe('3.1');
  });

  it('carries the contract version', () => {
    expect(doc.info.version).toBe('1.0.0-beta.4');
  });

  it('references the envelope from every error response', () => {
    let errors = 0;
    for (const item of Object.values(doc.paths)) {
      for (const op of Object.values(item)) {
        for (const [status, response] of Object.entries(op.responses)) {
          if (status.startsWith('2') || status.startsWith('3')) continue;
          errors++;
          expect(response.content?.['application/json']?.schema.$ref).toBe(envelopeRef);
        }
      }
    }
    if (Object.keys(doc.paths).length) expect(errors).toBeGreaterThan(0);
  });
});

describe('platform document', () => {
  it('describes the OAuth and device endpoints and /me', async () => {
    const doc = (await (await fetch(`${app.url}/api/platform/v1/openapi.json`)).json()) as Doc;
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining(['/oauth/authorize', '/oauth/token', '/oauth/revoke', '/auth/device/code', '/auth/device/token', '/auth/refresh', '/me']),
    );
  });
});

describe('rate limits in the documents', () => {
  it('name the buckets of each operation, from the limits table', async () => {
    const platform = (await (await fetch(`${app.url}/api/platform/v1/openapi.json`)).json()) as { paths: Record<string, Record<string, Record<string, unknown>>> };
    const pub = (await (await fetch(`${app.url}/api/public/v1/openapi.json`)).json()) as typeof platform;
    const buckets = (op: Record<string, unknown> | undefined) => (op?.['x-rate-limits'] as Array<{ bucket: string; limit: number }>).map((l) => `${l.bucket}:${l.limit}`).sort();
    expect(buckets(pub.paths['/catalog/search']?.get)).toEqual(['public-search:60']);
    expect(buckets(pub.paths['/catalog/discover']?.get)).toEqual(['public-discover:90']);
    expect(buckets(platform.paths['/me']?.get)).toEqual(['app:6000', 'token-reads:300']);
    expect(buckets(platform.paths['/auth/device/code']?.post)).toEqual(['device-code:10', 'unauthenticated:300']);
    expect(buckets(platform.paths['/oauth/token']?.post)).toEqual(['token-admission:180', 'token-client:120', 'unauthenticated:300']);
    expect(buckets(platform.paths['/me/connected-apps/{clientId}']?.delete)).toEqual(['app:6000', 'token-writes:120']);
    expect(String(pub.paths['/catalog/search']?.get?.description)).toContain('60 per minute per client address');
  });
});

describe('public document', () => {
  it('lists the catalog routes', async () => {
    const doc = (await (await fetch(`${app.url}/api/public/v1/openapi.json`)).json()) as Doc;
    expect(Object.keys(doc.paths).sort()).toEqual(expect.arrayContaining(['/catalog/discover', '/catalog/search', '/catalog/trending']));
  });
});

describe('reference page', () => {
  it('serves /docs and its assets from the installed package', async () => {
    const page = await fetch(`${app.url}/docs`);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('/docs/assets/swagger-ui-bundle.js');
    expect(html).not.toMatch(/https?:\/\//);
    const js = await fetch(`${app.url}/docs/assets/swagger-ui-bundle.js`);
    expect(js.status).toBe(200);
    const init = await (await fetch(`${app.url}/docs/init.js`)).text();
    expect(init).toContain('/api/platform/v1/openapi.json');
    expect(init).toContain('/api/public/v1/openapi.json');
  });
});
