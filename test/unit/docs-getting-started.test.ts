// The getting started of /docs (the platform document's introduction) tells a newcomer what the
// README's "First five minutes" does: sign up, register the app yourself at /account/apps (the admin
// CLI being the operator's alternative), then the device flow and the first call.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { platformGuide } from '../../src/rest/openapi-guide.ts';

const BASE = 'http://localhost:3000';
const guide = platformGuide(BASE);
const gettingStarted = guide.slice(guide.indexOf('## Getting started'), guide.indexOf('## Scopes'));
const readme = fs.readFileSync(path.resolve(import.meta.dirname, '../../README.md'), 'utf8');
const firstFive = readme.slice(readme.indexOf('## First five minutes'), readme.indexOf('## Test it'));

const at = (text: string, what: string) => {
  const i = text.indexOf(what);
  expect(i, what).toBeGreaterThanOrEqual(0);
  return i;
};

describe('/docs getting started', () => {
  it("follows the README's first five minutes: sign up, register at /account/apps, the device flow, the first call", () => {
    for (const text of [gettingStarted, firstFive]) {
      const steps = [`${BASE}/account/sign-up`, `${BASE}/account/apps`, '/auth/device/code', '/auth/device/token', '/me'].map((s) => at(text, s));
      expect(steps).toEqual([...steps].sort((a, b) => a - b));
    }
  });

  it('names the admin CLI only as the operator’s alternative, after self-service registration', () => {
    expect(at(gettingStarted, 'app:create')).toBeGreaterThan(at(gettingStarted, `${BASE}/account/apps`));
    expect(gettingStarted).toContain('The operator of the service can register apps with the admin CLI instead');
    expect(gettingStarted).toContain('APP_REGISTRATION=closed');
  });

  it('tells a public app it has no secret, as the registration page does', () => {
    expect(gettingStarted).toContain('A public app (TVs, phones, CLIs) has no secret');
  });
});
