// The limits on playback (core/limits/table.ts), at their real counts: POST /playback/{action} 120 per 5 minutes per
// user; GET /playback/events 20 connection attempts per minute per token and 60 per user, whether the
// stream is opened with the bearer token or with a ticket that token asked for.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { expectError } from './helpers/envelope.ts';
import { many } from './helpers/limits.ts';
import { member, platform, seedCatalog, SPIRITED_AWAY, tokenWith } from './helpers/seed.ts';
import { issueToken } from './helpers/tokens.ts';
import { makeApp } from './helpers/oauth.ts';

let app: TestApp;

beforeAll(async () => {
  app = await startTestApp({ RATE_LIMITS: 'on' });
  await seedCatalog(app, { shows: 1 });
});
afterAll(() => app?.stop());

/** Opens a stream and closes it at once; answers the status (and the error body if any). */
async function attempt(path: string, headers: Record<string, string> = {}) {
  const controller = new AbortController();
  const res = await fetch(`${app.url}/api/platform/v1${path}`, { headers, signal: controller.signal });
  if (res.status === 200) {
    controller.abort();
    return { status: 200, headers: res.headers, body: {} as Record<string, unknown> };
  }
  return { status: res.status, headers: res.headers, body: (await res.json()) as Record<string, unknown> };
}

const ticketOf = async (token: string) => (await platform(app, token, 'POST', '/playback/events/ticket', {})).body.ticket as string;

describe('GET /playback/events connection attempts', () => {
  it('20 per minute per token, counting bearer and ticket connections alike', async () => {
    const m = await member(app, 'limits_token', ['events:read']);
    for (let i = 0; i < 10; i++) expect((await attempt('/playback/events', { authorization: `Bearer ${m.token}` })).status).toBe(200);
    for (let i = 0; i < 10; i++) expect((await attempt(`/playback/events?ticket=${await ticketOf(m.token)}`)).status).toBe(200);
    const refused = await attempt(`/playback/events?ticket=${await ticketOf(m.token)}`);
    expectError(refused, 429, 'rate_limited', { retry_after: expect.any(Number) });
    expect(refused.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(refused.body.message).toContain('events-token');
    expectError(await attempt('/playback/events', { authorization: `Bearer ${m.token}` }), 429, 'rate_limited', { retry_after: expect.any(Number) });
    // Another token of the same user still connects.
    const other = await tokenWith(app, m, ['events:read']);
    expect((await attempt('/playback/events', { authorization: `Bearer ${other}` })).status).toBe(200);
  });

  it('60 per minute per user across tokens', async () => {
    const m = await member(app, 'limits_user', ['events:read']);
    const tokens = [m.token, await tokenWith(app, m, ['events:read']), await tokenWith(app, m, ['events:read'])];
    for (const token of tokens) {
      const answers = await many(20, 5, () => attempt('/playback/events', { authorization: `Bearer ${token}` }));
      expect(answers.map((a) => a.status)).toEqual(Array(20).fill(200));
    }
    const fourth = await tokenWith(app, m, ['events:read']);
    const refused = await attempt('/playback/events', { authorization: `Bearer ${fourth}` });
    expectError(refused, 429, 'rate_limited', { retry_after: expect.any(Number) });
    expect(refused.body.message).toContain('events-user');
  });
});

describe('POST /playback/{action}', () => {
  it('120 per 5 minutes per user, across apps', async () => {
    const m = await member(app, 'limits_playback', ['playback:write']);
    // A second app's token for the same user: the per-token write bucket (120 a minute) never fills.
    const other = await issueToken(app, { userId: m.userId, clientId: (await makeApp(app, { official: false })).client_id, scope: 'playback:write' });
    let n = 0;
    const send = (token: string) =>
      platform(app, token, 'POST', '/playback/start', {
        event_id: `limit-${++n}`,
        event_created_at: Date.now() - 60_000 + n,
        media_type: 'movie',
        title: 'Spirited Away',
        movie_db_id: SPIRITED_AWAY,
        playback_session_id: 'limits',
      });
    // One at a time: the embedded database can hang on concurrent transactions (see the report).
    const first = await many(60, 1, () => send(m.token));
    const second = await many(60, 1, () => send(other));
    expect([...first, ...second].filter((a) => a.status !== 200).map((a) => a.body)).toEqual([]);
    const refused = await send(other);
    expectError(refused, 429, 'rate_limited', { retry_after: expect.any(Number) });
    expect(refused.body.message).toContain('(playback)');
  });
});
