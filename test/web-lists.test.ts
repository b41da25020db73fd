// The Lists and List pages of the web app in Chromium, at a phone's and a desk's size, every state through
// the page checks (no sideways scroll, 44 px targets, axe): a list made with the New list form and filled
// through the API; reordered by the keyboard on the drag handle (Space, ArrowDown, Space), by the Move
// buttons and by a mouse drag, the order checked through the API after each; edited, liked, a refused
// remove rolled back with its message, an item removed, the list deleted behind its confirm step; a
// second user invited, who sees the list read-only, likes it, accepts in a second browser, reorders as a
// collaborator and is removed again; an invitation declined; the lists a page at a time; and the sign-in
// gate for a visitor.
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { FIRST_SHOW, SPIRITED_AWAY } from './helpers/seed.ts';
import { apiUser, focused, go, RATE_LIMITED, refusedWhile, type ApiUser } from './helpers/web-library.ts';
import { screenshotPath } from './helpers/browser.ts';
import { expectGoodPage, openApp, signedInApp, startWebApp, VIEWPORTS, type WebApp } from './helpers/web-app.ts';

let web: WebApp;
beforeAll(async () => {
  web = await startWebApp({ shows: 2 });
}, 120_000);
afterAll(async () => {
  await web?.stop();
});

/** Polls wait for the page and the service, which a loaded machine can make slow (the default is 1 s). */
const WAIT = { timeout: 30_000 };

const SCOPES = ['profile:read', 'lists:read', 'lists:write'];
const TOY_STORY = 862;
const CRIME = 7000;
const TITLES = [
  { type: 'movie', movieDbId: SPIRITED_AWAY },
  { type: 'movie', movieDbId: TOY_STORY },
  { type: 'movie', movieDbId: CRIME },
  { type: 'show', movieDbId: FIRST_SHOW },
];

type Detail = { name: string; items: { id: number; title: string }[]; collaborators: { username: string }[]; isLiked: boolean; likeCount: number };

/** The names of the rows on the page, in order. */
const rows = (page: Page) => page.getByRole('list', { name: 'Titles' }).locator('.list-item-name').allTextContents();
const pressed = (page: Page, name: string) => page.getByRole('button', { name, exact: true }).getAttribute('aria-pressed');

describe.each(VIEWPORTS)('at %o', (viewport) => {
  const w = viewport.width;
  let ann: ApiUser;
  let bob: ApiUser;
  let page: Page;
  let bobPage: Page;
  let closers: (() => Promise<void>)[] = [];
  let session: Promise<void> | undefined;
  const order = async (id: number) => ((await ann.api('GET', `/lists/${id}`)) as unknown as Detail).items.map((i) => i.title);

  /** Ann's signed-in page for the viewport's tests (signing in asserts, so it runs inside the first test). */
  const signIn = () =>
    (session ??= (async () => {
      ann = await apiUser(web.app, `ann${w}`, SCOPES);
      bob = await apiUser(web.app, `bob${w}`, SCOPES);
      const signedIn = await signedInApp(web, ann.username, viewport, '/');
      page = signedIn.page;
      closers.push(() => signedIn.context.close());
    })());
  beforeEach(() => signIn());
  afterAll(async () => {
    for (const close of closers) await close();
    closers = [];
  });

  let listId = 0;
  let names: string[] = [];

  it('makes a list with the New list form; its titles show in the list order', async () => {
    await go(page, '/lists', 'Lists');
    await page.getByText('You have no lists yet.').waitFor();
    await expectGoodPage(page);

    const form = page.getByRole('form', { name: 'New list' });
    await form.getByLabel('Name').fill('Weekend');
    await form.getByLabel('Description').fill('For rainy days');
    await form.getByLabel('Privacy').selectOption('public');
    await form.getByRole('button', { name: 'Create' }).click();
    await page.waitForURL((u) => /^\/lists\/\d+$/.test(u.pathname));
    listId = Number(new URL(page.url()).pathname.split('/').pop());
    await page.getByRole('heading', { level: 1, name: 'Weekend' }).waitFor();
    await page.getByText('No titles yet.').waitFor();
    await expectGoodPage(page);
    expect(await ann.api('GET', `/lists/${listId}`)).toMatchObject({ name: 'Weekend', description: 'For rainy days', isPublic: true, isOwner: true, itemCount: 0, items: [] });

    const added = (await ann.api('POST', `/lists/${listId}/items`, { items: TITLES })) as { results: { status: string; item: { title: string } }[] };
    expect(added.results.map((r) => r.status)).toEqual(['added', 'added', 'added', 'added']);
    names = added.results.map((r) => r.item.title);

    await go(page, '/lists', 'Lists');
    const card = page.getByRole('list', { name: 'Your lists' }).getByRole('link', { name: 'Weekend' });
    await card.waitFor();
    await expectGoodPage(page);
    await page.screenshot({ path: screenshotPath(`web-lists-${w}`), fullPage: true });
    await card.click();
    await page.getByRole('heading', { level: 1, name: 'Weekend' }).waitFor();
    await expect.poll(() => rows(page), WAIT).toEqual(names);
    expect(await page.getByRole('link', { name: names[0]! }).getAttribute('href')).toBe(`/title/movie/${SPIRITED_AWAY}`);
    await expectGoodPage(page);
  });

  it('reorders by the keyboard on the drag handle, by the Move buttons and by a mouse drag', async () => {
    const [a, b, c, d] = names as [string, string, string, string];

    // dnd-kit's keyboard sensor: Space picks the title up, ArrowDown moves it, Space drops it.
    const handle = page.getByRole('button', { name: `Reorder ${a}` });
    await handle.focus();
    await page.keyboard.press('Space');
    await expect.poll(() => handle.getAttribute('aria-pressed'), WAIT).toBe('true');
    await page.getByText(`Picked up ${a} at position 1 of 4.`).waitFor({ state: 'attached' });
    // "Picked up" is on the page at once, but the sensor listens for the next keys only from a zero-delay
    // timer set at the pick-up (so the Space still on its way to the document does not drop the title
    // again). A busy browser dispatches a key press before a timer task, and that ArrowDown would only
    // scroll the page. A timer set now runs after the sensor's: timers of equal delay run in the order set.
    await page.evaluate('new Promise((resolve) => setTimeout(resolve))');
    await page.keyboard.press('ArrowDown');
    await page.getByText(`${a} is over position 2 of 4.`).waitFor({ state: 'attached' });
    await page.keyboard.press('Space');
    await page.getByText(`${a} dropped at position 2 of 4.`).waitFor({ state: 'attached' });
    await expect.poll(() => rows(page), WAIT).toEqual([b, a, c, d]);
    await expect.poll(() => order(listId), WAIT).toEqual([b, a, c, d]);
    await expect.poll(() => focused(page), WAIT).toBe(`Reorder ${a}`);

    // The Move buttons, by keyboard (the focus stays on the button) and by a click.
    await page.getByRole('button', { name: `Move ${c} up` }).focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => rows(page), WAIT).toEqual([b, c, a, d]);
    await expect.poll(() => focused(page), WAIT).toBe(`Move ${c} up`);
    await page.getByText(`${c} moved to position 2 of 4.`).waitFor({ state: 'attached' });
    await expect.poll(() => order(listId), WAIT).toEqual([b, c, a, d]);
    await page.getByRole('button', { name: `Move ${b} down` }).click();
    await expect.poll(() => order(listId), WAIT).toEqual([c, b, a, d]);
    await expect.poll(() => focused(page), WAIT).toBe(`Move ${b} down`);

    // A mouse drag of the last title's handle onto the first row.
    const list = page.getByRole('list', { name: 'Titles' });
    await list.evaluate((el) => el.scrollIntoView({ block: 'center' }));
    const from = (await page.getByRole('button', { name: `Reorder ${d}` }).boundingBox())!;
    const to = (await list.getByRole('listitem').first().boundingBox())!;
    await page.mouse.move(from.x + from.width / 2, from.y + from.height / 2);
    await page.mouse.down();
    await page.mouse.move(from.x + from.width / 2, from.y + from.height / 2 - 10, { steps: 2 });
    await page.mouse.move(from.x + from.width / 2, to.y + to.height / 2, { steps: 15 });
    await page.mouse.up();
    await expect.poll(() => rows(page), WAIT).toEqual([d, c, b, a]);
    await expect.poll(() => order(listId), WAIT).toEqual([d, c, b, a]);
    await expectGoodPage(page);
    await page.screenshot({ path: screenshotPath(`web-list-${w}`), fullPage: true });
  });

  it('edits, likes, rolls back a refused remove with its message, removes a title and deletes the list', async () => {
    const [d, c, b, a] = [names[3]!, names[2]!, names[1]!, names[0]!];

    await page.getByRole('button', { name: 'Edit list' }).click();
    const edit = page.getByRole('form', { name: 'Edit list' });
    await expect.poll(() => edit.getByLabel('Name').inputValue(), WAIT).toBe('Weekend');
    await expectGoodPage(page);
    await edit.getByLabel('Name').fill('Weekend picks');
    await edit.getByLabel('Description').fill('Rainy days, mostly');
    await edit.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('heading', { level: 1, name: 'Weekend picks' }).waitFor();
    await expect.poll(async () => (await ann.api('GET', `/lists/${listId}`)) as unknown as Detail, WAIT).toMatchObject({ name: 'Weekend picks', description: 'Rainy days, mostly' });

    expect(await pressed(page, 'Like')).toBe('false');
    await page.getByRole('button', { name: 'Like', exact: true }).click();
    await expect.poll(() => pressed(page, 'Like'), WAIT).toBe('true');
    await page.getByText('1 like', { exact: true }).waitFor();
    await expect.poll(async () => (await ann.api('GET', `/lists/${listId}`)) as unknown as Detail, WAIT).toMatchObject({ isLiked: true, likeCount: 1 });

    const refused = await refusedWhile(page, 'platform.lists.removeItem', async () => {
      await page.getByRole('button', { name: `Remove ${a}` }).click();
      await page.getByText(RATE_LIMITED).waitFor();
      await expect.poll(() => rows(page), WAIT).toEqual([d, c, b, a]);
    });
    expect(refused).toEqual(['POST']);
    expect(await order(listId)).toEqual([d, c, b, a]);

    await page.getByRole('button', { name: `Remove ${b}` }).click();
    await expect.poll(() => rows(page), WAIT).toEqual([d, c, a]);
    await expect.poll(() => order(listId), WAIT).toEqual([d, c, a]);
    await expect.poll(() => focused(page), WAIT).toBe(`Remove ${a}`);

    await page.getByRole('button', { name: 'Delete list' }).click();
    const confirm = page.getByRole('group', { name: /^Delete “Weekend picks” and its 3 titles\?/ });
    await confirm.waitFor();
    await expect.poll(() => focused(page), WAIT).toBe('Cancel');
    await expectGoodPage(page);
    await confirm.getByRole('button', { name: 'Yes, delete' }).click();
    await page.getByRole('heading', { level: 1, name: 'Lists' }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/lists');
    await page.getByText('List “Weekend picks” deleted.').waitFor();
    const gone = await ann.call('GET', `/lists/${listId}`);
    expect(gone.status).toBe(404);
    expect(gone.body).toMatchObject({ error: 'not_found' });
    await expect.poll(async () => ((await ann.api('GET', '/me/lists')) as { items: unknown[] }).items, WAIT).toEqual([]);
  });

  it('invites a second user, who sees the list read-only, likes it, accepts in a second browser and reorders; the owner removes them', async () => {
    const shared = (await ann.api('POST', '/lists', { name: 'Shared picks' })) as { id: number };
    await ann.api('POST', `/lists/${shared.id}/items`, { items: TITLES.slice(0, 3) });
    const [x, y, z] = names as [string, string, string];

    await go(page, `/lists/${shared.id}`, 'Shared picks');
    await page.getByLabel('Username').fill(bob.username);
    await page.getByRole('button', { name: 'Invite', exact: true }).click();
    await page.getByText(`Invited ${bob.username}. They accept from their Lists page.`).waitFor();
    await page.getByText('invited, not accepted yet').waitFor();
    await expectGoodPage(page);
    expect(await bob.api('GET', '/me/list-invitations')).toEqual({
      items: [{ listId: shared.id, name: 'Shared picks', ownerUsername: ann.username, invitedAt: expect.any(String) }],
    });

    // Bob, invited but not collaborating yet: the list read-only, and Like.
    const second = await signedInApp(web, bob.username, viewport, `/lists/${shared.id}`);
    closers.push(() => second.context.close());
    bobPage = second.page;
    await bobPage.getByRole('heading', { level: 1, name: 'Shared picks' }).waitFor();
    await expect.poll(() => rows(bobPage), WAIT).toEqual([x, y, z]);
    for (const name of [`Reorder ${x}`, `Move ${x} down`, `Remove ${x}`, 'Edit list', 'Delete list', 'Invite']) {
      expect(await bobPage.getByRole('button', { name, exact: true }).count(), name).toBe(0);
    }
    await bobPage.getByRole('button', { name: 'Like', exact: true }).click();
    await expect.poll(() => pressed(bobPage, 'Like'), WAIT).toBe('true');
    await expectGoodPage(bobPage);
    await bobPage.screenshot({ path: screenshotPath(`web-list-read-only-${w}`), fullPage: true });
    await expect.poll(async () => (await bob.api('GET', `/lists/${shared.id}`)) as unknown as Detail, WAIT).toMatchObject({ isLiked: true, likeCount: 1 });

    // He accepts on his Lists page; the list joins his lists.
    await go(bobPage, '/lists', 'Lists');
    const invitation = bobPage.getByRole('listitem').filter({ hasText: 'Shared picks' });
    await invitation.getByRole('button', { name: 'Accept' }).waitFor();
    await expectGoodPage(bobPage);
    await bobPage.screenshot({ path: screenshotPath(`web-lists-invitation-${w}`), fullPage: true });
    await invitation.getByRole('button', { name: 'Accept' }).click();
    await bobPage.getByRole('list', { name: 'Your lists' }).getByRole('link', { name: 'Shared picks' }).waitFor();
    await expect.poll(async () => ((await bob.api('GET', '/me/list-invitations')) as { items: unknown[] }).items, WAIT).toEqual([]);
    expect(((await bob.api('GET', '/me/lists')) as { items: { id: number }[] }).items.map((l) => l.id)).toEqual([shared.id]);

    // As a collaborator he reorders; the owner's controls stay the owner's.
    await bobPage.getByRole('list', { name: 'Your lists' }).getByRole('link', { name: 'Shared picks' }).click();
    await bobPage.getByRole('heading', { level: 1, name: 'Shared picks' }).waitFor();
    await bobPage.getByRole('button', { name: `Move ${z} up` }).click();
    await expect.poll(() => order(shared.id), WAIT).toEqual([x, z, y]);
    expect(await bobPage.getByRole('button', { name: 'Edit list' }).count()).toBe(0);
    await bobPage.getByRole('button', { name: 'Leave list' }).waitFor();
    await expectGoodPage(bobPage);

    // The owner sees him as a collaborator and removes him.
    await go(page, '/lists', 'Lists');
    await go(page, `/lists/${shared.id}`, 'Shared picks');
    await expect.poll(() => rows(page), WAIT).toEqual([x, z, y]);
    const remove = page.getByRole('button', { name: `Remove collaborator ${bob.username}` });
    await remove.waitFor();
    await expectGoodPage(page);
    await remove.click();
    await expect.poll(async () => ((await ann.api('GET', `/lists/${shared.id}`)) as unknown as Detail).collaborators, WAIT).toEqual([]);

    // An invitation declined goes away.
    const other = (await ann.api('POST', '/lists', { name: 'Another' })) as { id: number };
    await ann.api('POST', `/lists/${other.id}/collaborators`, { username: bob.username });
    await go(bobPage, '/lists', 'Lists');
    const declined = bobPage.getByRole('listitem').filter({ hasText: 'Another' });
    await declined.getByRole('button', { name: 'Decline' }).click();
    await bobPage.getByText('Declined “Another”.').waitFor();
    await expect.poll(async () => ((await bob.api('GET', '/me/list-invitations')) as { items: unknown[] }).items, WAIT).toEqual([]);
  });

  it('pages the lists with Load more', async () => {
    for (let i = 1; i <= 51; i++) await bob.api('POST', '/lists', { name: `Pile ${String(i).padStart(2, '0')}` });
    await go(bobPage, '/', 'Home');
    await go(bobPage, '/lists', 'Lists');
    const cards = bobPage.getByRole('list', { name: 'Your lists' }).getByRole('listitem');
    await expect.poll(() => cards.count(), WAIT).toBe(50);
    await bobPage.getByRole('button', { name: 'Load more' }).click();
    await expect.poll(() => cards.count(), WAIT).toBe(51);
    expect(await cards.last().getByRole('link').textContent()).toBe('Pile 51');
    expect(await bobPage.getByRole('button', { name: 'Load more' }).count()).toBe(0);
    await expectGoodPage(bobPage);
  });

  it('asks a visitor to sign in', async () => {
    const { context, page: visitor } = await openApp(web, viewport, '/lists');
    try {
      await visitor.getByText('Sign in to see your lists.').waitFor();
      await expectGoodPage(visitor);
    } finally {
      await context.close();
    }
  });
});
