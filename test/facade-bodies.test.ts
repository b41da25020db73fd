// JSON bodies keep their JSON types through the REST facade (a string where the schema wants a number
// or a boolean is a 400, never coerced), path parameters are still read from the path, and a write
// sent with no body at all reads as an empty JSON object.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { expectError } from './helpers/envelope.ts';
import { member, platform, seedCatalog, SPIRITED_AWAY, type Member } from './helpers/seed.ts';

let app: TestApp;
let alice: Member;

beforeAll(async () => {
  app = await startTestApp();
  await seedCatalog(app, { shows: 1 });
  alice = await member(app, 'bodies', ['lists:read', 'lists:write', 'collection:read', 'collection:write']);
});
afterAll(() => app?.stop());

describe('JSON body types', () => {
  it('refuses a string where a boolean belongs ("false" must not read as true)', async () => {
    expectError(await platform(app, alice.token, 'POST', '/lists', { name: 'Typed', isPublic: 'false' }), 400, 'invalid_request');
    const ok = await platform(app, alice.token, 'POST', '/lists', { name: 'Typed', isPublic: false });
    expect(ok.status).toBe(200);
    expect(ok.body.isPublic).toBe(false);
  });

  it('refuses a string where a number belongs, and accepts the number', async () => {
    expectError(await platform(app, alice.token, 'POST', '/me/collection', { type: 'movie', movieDbId: String(SPIRITED_AWAY), format: 'dvd' }), 400, 'invalid_request');
    const ok = await platform(app, alice.token, 'POST', '/me/collection', { type: 'movie', movieDbId: SPIRITED_AWAY, format: 'dvd' });
    expect(ok.status).toBe(200);
    expect(ok.body.movieDbId).toBe(SPIRITED_AWAY);
  });

  it('still reads numeric path parameters of a write from the path', async () => {
    const added = await platform(app, alice.token, 'POST', '/me/collection', { type: 'movie', movieDbId: SPIRITED_AWAY, format: 'bluray' });
    const changed = await platform(app, alice.token, 'PATCH', `/me/collection/${added.body.id}`, { notes: 'steelbook' });
    expect(changed.status).toBe(200);
    expect(changed.body.notes).toBe('steelbook');
  });
});

describe('writes without a body', () => {
  it('read as {}: liking a list needs no body', async () => {
    const list = await platform(app, alice.token, 'POST', '/lists', { name: 'Liked', isPublic: true });
    const res = await fetch(`${app.url}/api/platform/v1/lists/${list.body.id}/like`, { method: 'POST', headers: { authorization: `Bearer ${alice.token}` } });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ isLiked: true, likeCount: 1 });
  });
});
