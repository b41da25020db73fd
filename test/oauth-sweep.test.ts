// Expired OAuth artifacts are deleted by the sweep; live ones stay.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { query } from '../src/core/db/sql.ts';
import { sweepExpiredArtifacts } from '../src/core/tokens/sweep.ts';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { makeApp, postJson } from './helpers/oauth.ts';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(() => app?.stop());

const count = async () => (await query<{ n: number }>(app.db.orm.em.fork(), { text: `select count(*)::int as n from oauth_artifact where model = 'DeviceCode'`, params: [] }))[0]!.n;

describe('sweepExpiredArtifacts', () => {
  it('deletes expired device codes and keeps live ones', async () => {
    const created = await makeApp(app);
    for (let i = 0; i < 3; i++) expect((await postJson(`${app.url}/api/platform/v1/auth/device/code`, { client_id: created.client_id })).status).toBe(200);
    expect(await count()).toBe(3);
    // Age two of them past their expiry (real rows, as time would leave them).
    await query(app.db.orm.em.fork(), {
      text: `update oauth_artifact set expires_at = now() - interval '1 second' where id in (select id from oauth_artifact where model = 'DeviceCode' limit 2)`,
      params: [],
    });
    expect(await sweepExpiredArtifacts(app.db.orm.em.fork())).toBe(2);
    expect(await count()).toBe(1);
  });
});
