// docs/trakt-compatibility.md against what is served: its endpoint table lists every route of the
// facade's route table (TRAKT_ROUTES) and no route that is not served, and /trakt/openapi.json (made
// from the same table) lists every route; the README links the document and names TRAKT_API_PORT.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TRAKT_ROUTES } from '../src/trakt/routes/index.ts';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { call } from './helpers/http.ts';

const ROOT = path.resolve(import.meta.dirname, '..');
const DOC = fs.readFileSync(path.join(ROOT, 'docs/trakt-compatibility.md'), 'utf8');
const README = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');

/** A route as the document and OpenAPI spell it: `GET /users/{id}/lists/{list_id}`. */
const spelled = (method: string, expressPath: string) => `${method} ${expressPath.replace(/:([A-Za-z_]+)/g, '{$1}')}`;
const served = TRAKT_ROUTES.map((r) => spelled(r.method, r.path));

/** The rows of the "Endpoints" section's table: `| GET | \`/path\` | auth | notes |`. */
function documentedRoutes(): { route: string; auth: string }[] {
  const section = /^## Endpoints\n([\s\S]*?)(?=^## )/m.exec(DOC)?.[1] ?? '';
  return [...section.matchAll(/^\| (GET|POST|PUT|DELETE) \| `([^`]+)` \| (none|optional|required) \|/gm)].map((m) => ({ route: `${m[1]} ${m[2]}`, auth: m[3]! }));
}

describe('docs/trakt-compatibility.md', () => {
  it('lists every served route in its endpoint table, once', () => {
    const documented = documentedRoutes().map((d) => d.route);
    expect(documented.length).toBeGreaterThan(0);
    expect(served.filter((r) => !documented.includes(r)), 'served but not in the table').toEqual([]);
    expect(documented.filter((r, i) => documented.indexOf(r) !== i), 'listed twice').toEqual([]);
  });

  it('lists no route that is not served', () => {
    expect(documentedRoutes().map((d) => d.route).filter((r) => !served.includes(r)), 'in the table but not served').toEqual([]);
  });

  it('gives each route the auth the route has', () => {
    const byRoute = new Map(TRAKT_ROUTES.map((r) => [spelled(r.method, r.path), r.auth]));
    const wrong = documentedRoutes().filter((d) => byRoute.has(d.route) && byRoute.get(d.route) !== d.auth);
    expect(wrong.map((d) => `${d.route}: doc ${d.auth}, served ${byRoute.get(d.route)}`)).toEqual([]);
  });

  it('says how to point a client at the service, register an app, sign in, and what ids mean', () => {
    for (const phrase of ['{BASE_URL}/trakt', 'TRAKT_API_PORT', '/account/apps', 'trakt-api-key', '/oauth/device/code', '/oauth/device/token', 'verification_url', '`tmdb`', '`imdb`', '`tvdb`', '`slug`', '## What differs from Trakt', '## Not served']) {
      expect(DOC, phrase).toContain(phrase);
    }
  });
});

describe('README', () => {
  it('has a section on apps written for Trakt that links the document, and the TRAKT_API_PORT row', () => {
    const section = /^## Use apps written for Trakt\n([\s\S]*?)(?=^## )/m.exec(README)?.[1];
    expect(section).toBeDefined();
    expect(section).toContain('docs/trakt-compatibility.md');
    expect(README).toMatch(/^\| `TRAKT_API_PORT` \| unset \| .+ \|$/m);
  });
});

describe('/trakt/openapi.json', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp();
  });
  afterAll(() => app?.stop());

  it('has every route of the table, and nothing else', async () => {
    const doc = await call(app, '/trakt/openapi.json');
    expect(doc.status).toBe(200);
    const paths = doc.body.paths as Record<string, Record<string, unknown>>;
    const listed = Object.entries(paths).flatMap(([p, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${p}`));
    expect(listed.sort()).toEqual([...served].sort());
  });
});
