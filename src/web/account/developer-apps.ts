// /account/apps: a signed-in user registers OAuth apps and manages the ones they own (core/apps/
// owned.ts). Mounted only when APP_REGISTRATION is open, so closed registration answers 404 like any
// unknown path. Every POST needs the account session's CSRF token (403 without it); another user's app
// is 404 for its page and every action. POSTs redirect (303) to a page, so a reload never repeats them.
// Every POST counts in its bucket first (form-limits.ts): registrations, secret rotations, other changes.
import type { Request, Router } from 'express';
import { strictRouter } from '../../rest/routing.ts';
import { deleteOwnedApp, listOwnedApps, ownedApp, registerOwnedApp, rotateOwnedAppSecret, setOwnedAppActive } from '../../core/apps/owned.ts';
import { SCOPES } from '../../core/apps/scopes.ts';
import { isCode, ownerHandlers, send, type Form, type OwnerDeps } from './owner-handlers.ts';
import { deleteAppPage, developerAppPage, developerAppsPage, EMPTY_FORM, newAppPage, type AppForm } from '../pages/developer-apps.ts';
import { page } from '../../oauth/pages/layout.ts';
import { handOverSecret, takeSecret } from './secret-reveal.ts';
import { appWebhooksSection } from './app-webhooks.ts';

const notFoundPage = () => page('Not found', '<p>There is no such app among yours.</p><p><a href="/account/apps">Back to your apps</a></p>');
const appPath = (clientId: string) => `/account/apps/${encodeURIComponent(clientId)}`;

/** The registration form as posted: checkboxes are one field per scope (the form parser refuses repeats). */
function readForm(body: Form): AppForm & { type: string | undefined } {
  return {
    name: body.name ?? '',
    redirectUris: body.redirect_uris ?? '',
    type: body.type,
    confidential: body.type === 'confidential',
    scopes: SCOPES.filter((s) => body[`scope:${s}`] === 'on'),
  };
}

export function developerAppRoutes(deps: OwnerDeps): Router {
  const r = strictRouter();
  const em = () => deps.orm.em.fork();

  const { view, act } = ownerHandlers(deps, { home: '/account/apps', notFoundPage });

  const clientId = (req: Request) => String(req.params.clientId);

  r.get('/account/apps', view(async (req, res, session, username) => {
    const notice = req.query.deleted === '1' ? 'The app is deleted.' : undefined;
    send(res, 200, developerAppsPage({ username, apps: await listOwnedApps(em(), session.userId), notice }));
  }));

  r.get('/account/apps/new', view(async (_req, res, session) => {
    send(res, 200, newAppPage({ csrf: session.csrf, form: EMPTY_FORM }));
  }));

  r.post('/account/apps', act('app-create', async (_req, res, session, body) => {
    const form = readForm(body);
    const fail = (error: string) => send(res, 400, newAppPage({ csrf: session.csrf, form, error }));
    if (form.type !== 'public' && form.type !== 'confidential') return fail('Choose whether the app is public or confidential.');
    // Checked here to say it in the form's words (the rules' message speaks of the CLI's omitted --scopes).
    if (!form.scopes.length) return fail('Choose at least one scope.');
    const redirectUris = form.redirectUris.split(/\r?\n/).map((line) => line.trim()).filter(Boolean);
    try {
      const created = await registerOwnedApp(em(), session.userId, { name: form.name, redirectUris, scopes: [...form.scopes], confidential: form.confidential });
      if (created.client_secret) handOverSecret(res, { key: deps.key, secure: deps.secure, userId: session.userId, clientId: created.client_id, secret: created.client_secret });
      res.redirect(303, `${appPath(created.client_id)}?registered=1`);
    } catch (err) {
      if (!isCode(err, 'invalid_request')) throw err;
      fail(`${err.message[0]!.toUpperCase()}${err.message.slice(1)}.`);
    }
  }));

  r.get('/account/apps/:clientId', view(async (req, res, session) => {
    const app = await ownedApp(em(), session.userId, clientId(req));
    const secret = takeSecret(req, res, { key: deps.key, secure: deps.secure, userId: session.userId, clientId: app.clientId });
    const notices: Record<string, string> = { registered: 'The app is registered.', rotated: 'The secret is rotated: the old one no longer works.' };
    const said = Object.keys(notices).find((k) => req.query[k] === '1');
    const webhooks = await appWebhooksSection(em(), session.userId, app, req);
    send(res, 200, developerAppPage({ app, csrf: session.csrf, secret, notice: said && notices[said], webhooks }));
  }));

  r.get('/account/apps/:clientId/delete', view(async (req, res, session) => {
    send(res, 200, deleteAppPage({ app: await ownedApp(em(), session.userId, clientId(req)), csrf: session.csrf }));
  }));

  r.post('/account/apps/:clientId/rotate-secret', act('app-secret', async (req, res, session) => {
    const secret = await rotateOwnedAppSecret(em(), session.userId, clientId(req)).catch((err: unknown) => {
      if (isCode(err, 'invalid_request')) return null; // a public app: there is no secret to rotate
      throw err;
    });
    if (secret === null) return send(res, 400, page('Something went wrong', '<p>A public app has no client secret to rotate.</p>'));
    handOverSecret(res, { key: deps.key, secure: deps.secure, userId: session.userId, clientId: clientId(req), secret });
    res.redirect(303, `${appPath(clientId(req))}?rotated=1`);
  }));

  for (const [path, active] of [['deactivate', false], ['activate', true]] as const) {
    r.post(`/account/apps/:clientId/${path}`, act('app-edit', async (req, res, session) => {
      await setOwnedAppActive(em(), session.userId, clientId(req), active);
      res.redirect(303, appPath(clientId(req)));
    }));
  }

  r.post('/account/apps/:clientId/delete', act('app-edit', async (req, res, session) => {
    await deleteOwnedApp(em(), session.userId, clientId(req));
    res.redirect(303, '/account/apps?deleted=1');
  }));

  return r;
}
