// Media servers in the web app's Settings, in Chromium at a phone's and a desk's size: create a receiver
// (a refused name shown by its field), its three URLs shown once with Copy buttons and setup hints, a
// server posting to one (the counts, and a title the catalog lacks listed), new URLs behind a confirm
// step (the old URL dead at once), and Delete behind one. Every page state passes expectGoodPage.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixture, patched, postPlex } from './helpers/media-servers.ts';
import { expectGoodPage, signedInApp, startWebApp, VIEWPORTS, type WebApp } from './helpers/web-app.ts';

let web: WebApp;

beforeAll(async () => {
  web = await startWebApp();
});
afterAll(async () => {
  await web?.stop();
});

const eventually = <T>(read: () => T | Promise<T>) => expect.poll(read, { timeout: 20_000, interval: 100 });
const SECRET_URL = (kind: string) => new RegExp(`/hooks/media-server/msh_[A-Za-z0-9_-]{43}/${kind}$`);

describe.each(VIEWPORTS)('at %o', (viewport) => {
  it('creates a receiver, shows its URLs once, lists what it received, gives it new URLs and deletes it', async () => {
    const { context, page } = await signedInApp(web, `media_${viewport.width}`, viewport, '/settings');
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: web.app.url });
    try {
      const section = page.getByRole('region', { name: 'Media servers' });
      await eventually(() => section.getByText('No receiver yet.').count()).toBe(1);
      await expectGoodPage(page);

      // A name of spaces only: the service's refusal by the field, which takes the focus.
      const name = section.getByLabel('Receiver name');
      await name.fill('   ');
      await section.getByRole('button', { name: 'Create receiver' }).click();
      await eventually(() => name.getAttribute('aria-invalid')).toBe('true');
      expect(await name.evaluate((el) => el === el.ownerDocument.activeElement)).toBe(true);
      await expectGoodPage(page);

      await name.fill('Living room Plex');
      await section.getByLabel('Only this server account (optional)').fill('elan');
      await section.getByRole('button', { name: 'Create receiver' }).click();
      const urls = section.getByRole('group', { name: 'URLs of “Living room Plex”' });
      await eventually(() => urls.count()).toBe(1);
      expect(await urls.getByRole('heading').evaluate((el) => el === el.ownerDocument.activeElement)).toBe(true);
      const url = (server: string) => urls.getByLabel(`${server} URL`, { exact: true }).inputValue();
      const plexUrl = await url('Plex');
      expect(plexUrl).toMatch(SECRET_URL('plex'));
      expect(await url('Jellyfin')).toMatch(SECRET_URL('jellyfin'));
      expect(await url('Emby')).toMatch(SECRET_URL('emby'));
      expect(await urls.getByText(/Add Generic Destination/).count()).toBe(1);
      await urls.getByRole('button', { name: 'Copy the Plex URL' }).click();
      await eventually(() => urls.getByRole('status').filter({ hasText: 'Copied.' }).count()).toBe(1);
      expect(await page.evaluate('navigator.clipboard.readText()')).toBe(plexUrl);
      await expectGoodPage(page);
      await urls.getByRole('button', { name: 'Done' }).click();
      expect(await urls.count()).toBe(0);

      // Plex posts a play of a known title and the stop of one the catalog lacks.
      expect((await postPlex(plexUrl, patched(fixture('plex-movie'), { event: 'media.play' }))).status).toBe(200);
      const unknown = patched(fixture('plex-movie'), { event: 'media.stop', Metadata: { title: 'No Such Film', year: 1999, Guid: [{ id: 'tmdb://987654' }], viewOffset: 7_000_000 } });
      expect((await postPlex(plexUrl, unknown)).status).toBe(202);
      await page.reload();
      const item = section.getByRole('listitem').filter({ has: page.getByRole('heading', { name: 'Living room Plex' }) });
      await eventually(() => item.getByText(/Events received: Plex 2 · Jellyfin 0 · Emby 0\./).count()).toBe(1);
      expect(await item.getByText('Only the server account “elan”.', { exact: false }).count()).toBe(1);
      await item.getByText('Not in the catalog yet (1)').click();
      await eventually(() => item.getByText(/No Such Film \(1999\)/).count()).toBe(1);
      await expectGoodPage(page);

      // New URLs: asked once more (Cancel and Escape go back), then the old URL is dead at once.
      await item.getByRole('button', { name: 'New URLs' }).click();
      const cancel = item.getByRole('button', { name: 'Cancel' });
      expect(await cancel.evaluate((el) => el === el.ownerDocument.activeElement)).toBe(true);
      await expectGoodPage(page);
      await page.keyboard.press('Escape');
      await eventually(() => item.getByRole('button', { name: 'New URLs' }).evaluate((el) => el === el.ownerDocument.activeElement)).toBe(true);
      await item.getByRole('button', { name: 'New URLs' }).click();
      await item.getByRole('button', { name: 'Yes, new URLs' }).click();
      await eventually(() => urls.count()).toBe(1);
      const rotated = await url('Plex');
      expect(rotated).toMatch(SECRET_URL('plex'));
      expect(rotated).not.toBe(plexUrl);
      expect((await postPlex(plexUrl, patched(fixture('plex-movie'), { event: 'media.play' }))).status).toBe(404);
      expect((await postPlex(rotated, patched(fixture('plex-movie'), { event: 'media.play' }))).status).toBe(200);
      await urls.getByRole('button', { name: 'Done' }).click();

      await item.getByRole('button', { name: 'Delete' }).click();
      await expectGoodPage(page);
      await item.getByRole('button', { name: 'Yes, delete' }).click();
      await eventually(() => section.getByText('No receiver yet.').count()).toBe(1);
      expect((await postPlex(rotated, patched(fixture('plex-movie'), { event: 'media.play' }))).status).toBe(404);
      await expectGoodPage(page);
    } finally {
      await context.close();
    }
  });
});
