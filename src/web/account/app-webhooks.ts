// An app's webhooks on its owner's pages (/account/apps/{clientId}/webhooks/...), through the webhook
// service (core/webhooks/service.ts) after its ownership check: another user's app, an unknown one or
// a webhook of another app is the same 404 for every page and action. Like the app pages
// (developer-apps.ts, owner-handlers.ts): mounted only while APP_REGISTRATION is open, every POST counts
// in its form bucket first (`webhook-page-test` for test messages, which post to the owner's URL;
// `webhook-forms` for the rest), needs the session's CSRF token, and redirects (303) to a page, so a
// reload never repeats it. A new secret and the outcome of a test message are handed to the webhook's page once
// (secret-reveal.ts). What the service refuses in a form (a URL it may not post to, a kind the app's
// scopes rule out, the cap of webhooks) is shown in the form again, with what was typed.
import type { Request, Response, Router } from 'express';
import type { EntityManager } from '@mikro-orm/postgresql';
import { ownedApp, type OwnedApp } from '../../core/apps/owned.ts';
import { notFound, type ApiError } from '../../core/errors.ts';
import { WEBHOOK_KINDS } from '../../core/webhooks/kinds.ts';
import type { TestResult, Webhook } from '../../core/webhooks/schemas.ts';
import {
  appOfOwner,
  createWebhook,
  deleteWebhook,
  getWebhook,
  listWebhooks,
  resumeWebhook,
  rotateWebhookSecret,
  sendTestMessage,
  updateWebhook,
  webhookDeliveries,
  type WebhookApp,
} from '../../core/webhooks/service.ts';
import type { WebhookSettings } from '../../core/webhooks/settings.ts';
import type { BrowserSession } from '../../oauth/browser-session.ts';
import { page } from '../../oauth/pages/layout.ts';
import { strictRouter } from '../../rest/routing.ts';
import { appPath, deleteWebhookPage, deliveriesPage, EMPTY_WEBHOOK_FORM, webhookFormPage, webhookPage, webhookPath, webhooksSection, type WebhookForm } from '../pages/app-webhooks.ts';
import { isCode, ownerHandlers, send, type Form, type OwnerDeps } from './owner-handlers.ts';
import { handOver, takeOnce, type RevealAt } from './secret-reveal.ts';

const notFoundPage = () => page('Not found', '<p>There is no such webhook among your apps’.</p><p><a href="/account/apps">Back to your apps</a></p>');

/** A webhook's id as its path spells it: digits within a safe integer, or no such webhook. */
function hookId(req: Request): number {
  const raw = String(req.params.id);
  if (!/^[1-9][0-9]{0,14}$/.test(raw)) throw notFound('Webhook');
  return Number(raw);
}

/** The form as posted: one checkbox field per kind (the form parser refuses repeated names). */
const readForm = (body: Form): WebhookForm => ({ url: (body.url ?? '').trim(), kinds: WEBHOOK_KINDS.filter((k) => body[`kind:${k}`] === 'on') });

/** The service's refusal in the form's words: its field named as the form labels it, as a sentence. */
function formError(err: ApiError): string {
  const m = /^(url|kinds): (.*)$/s.exec(err.message);
  const text = m ? `${m[1] === 'url' ? 'URL' : 'Kinds'}: ${m[2]}` : err.message;
  return `${text[0]!.toUpperCase()}${text.slice(1)}${/[.!?]$/.test(text) ? '' : '.'}`;
}

const subjectOf = (clientId: string, id: number | string) => `${clientId}/webhooks/${id}`;
const secretAt = (clientId: string, id: number | string): RevealAt => ({ cookie: 'mts_webhook_secret', path: webhookPath(clientId, String(id)), subject: subjectOf(clientId, id) });
const testAt = (clientId: string, id: number | string): RevealAt => ({ cookie: 'mts_webhook_test', path: webhookPath(clientId, String(id)), subject: subjectOf(clientId, id) });

/** A test's outcome as the cookie carried it (sealed by this service, so only its shape is checked). */
function readTest(value: string | undefined): TestResult | undefined {
  if (value === undefined) return undefined;
  const t = JSON.parse(value) as Partial<TestResult>;
  return typeof t.delivered === 'boolean' && typeof t.durationMs === 'number' ? (t as TestResult) : undefined;
}

const NOTICES: Record<string, string> = {
  added: 'The webhook is added: it sends the changes made from now on.',
  saved: 'The webhook is saved.',
  resumed: 'The webhook is resumed: delivery goes on from where it stopped.',
  rotated: 'The secret is rotated: the old one signs beside it for a day.',
};

/** The Webhooks section of the app's page (developer-apps.ts); `?webhook-deleted=1` after a deletion. */
export async function appWebhooksSection(em: EntityManager, userId: string, app: OwnedApp, req: Request): Promise<{ html: string; style: string }> {
  const webhooks = await listWebhooks(em, await appOfOwner(em, userId, app.clientId));
  return webhooksSection({ app, webhooks, notice: req.query['webhook-deleted'] === '1' ? 'The webhook is deleted.' : undefined });
}

export function appWebhookRoutes(deps: OwnerDeps & { settings: WebhookSettings }): Router {
  const r = strictRouter();
  const { view, act } = ownerHandlers(deps, { home: '/account/apps', notFoundPage });
  const keys = (session: BrowserSession) => ({ key: deps.key, secure: deps.secure, userId: session.userId });

  /** The app named in the path, as its pages show it and as the webhook service takes it (404 unless the user owns it). */
  const appOf = async (em: EntityManager, req: Request, session: BrowserSession): Promise<{ shown: OwnedApp; app: WebhookApp }> => {
    const clientId = String(req.params.clientId);
    const shown = await ownedApp(em, session.userId, clientId);
    return { shown, app: await appOfOwner(em, session.userId, clientId) };
  };
  /** The app and the webhook named in the path. */
  const hookOf = async (em: EntityManager, req: Request, session: BrowserSession) => {
    const { shown, app } = await appOf(em, req, session);
    const id = hookId(req);
    return { shown, app, id, hook: await getWebhook(em, app, id) };
  };

  const base = '/account/apps/:clientId/webhooks';

  r.get(`${base}/new`, view(async (req, res, session) => {
    const { shown } = await appOf(deps.orm.em.fork(), req, session);
    send(res, 200, webhookFormPage({ app: shown, csrf: session.csrf, form: EMPTY_WEBHOOK_FORM }));
  }));

  /** A form's refusal: the form again, as typed, with the reason (400); other errors go on. */
  const refused = (res: Response, shown: OwnedApp, session: BrowserSession, form: WebhookForm, hook?: Webhook) => (err: unknown) => {
    if (!isCode(err, 'invalid_request')) throw err;
    send(res, 400, webhookFormPage({ app: shown, csrf: session.csrf, form, hook, error: formError(err) }));
  };
  const noKinds = 'Choose at least one kind of change to send.';

  r.post(base, act('webhook-forms', async (req, res, session, body) => {
    const em = deps.orm.em.fork();
    const { shown, app } = await appOf(em, req, session);
    const form = readForm(body);
    // Checked here to say it in the form's words.
    if (!form.kinds.length) return send(res, 400, webhookFormPage({ app: shown, csrf: session.csrf, form, error: noKinds }));
    await createWebhook(em, app, { url: form.url, kinds: [...form.kinds] }, deps.settings).then(
      (created) => {
        handOver(res, keys(session), secretAt(shown.clientId, created.id), created.secret);
        res.redirect(303, `${webhookPath(shown.clientId, created.id)}?added=1`);
      },
      refused(res, shown, session, form),
    );
  }));

  r.get(`${base}/:id`, view(async (req, res, session) => {
    const { shown, hook } = await hookOf(deps.orm.em.fork(), req, session);
    const secret = takeOnce(req, res, keys(session), secretAt(shown.clientId, hook.id));
    const test = readTest(takeOnce(req, res, keys(session), testAt(shown.clientId, hook.id)));
    const said = Object.keys(NOTICES).find((k) => req.query[k] === '1');
    send(res, 200, webhookPage({ app: shown, hook, csrf: session.csrf, secret, test, notice: said && NOTICES[said] }));
  }));

  r.get(`${base}/:id/edit`, view(async (req, res, session) => {
    const { shown, hook } = await hookOf(deps.orm.em.fork(), req, session);
    send(res, 200, webhookFormPage({ app: shown, csrf: session.csrf, form: { url: hook.url, kinds: hook.kinds }, hook }));
  }));

  r.post(`${base}/:id/edit`, act('webhook-forms', async (req, res, session, body) => {
    const em = deps.orm.em.fork();
    const { shown, app, id, hook } = await hookOf(em, req, session);
    const form = readForm(body);
    if (!form.kinds.length) return send(res, 400, webhookFormPage({ app: shown, csrf: session.csrf, form, hook, error: noKinds }));
    await updateWebhook(em, app, id, { url: form.url, kinds: [...form.kinds] }, deps.settings).then(
      () => res.redirect(303, `${webhookPath(shown.clientId, hook.id)}?saved=1`),
      refused(res, shown, session, form, hook),
    );
  }));

  r.get(`${base}/:id/delete`, view(async (req, res, session) => {
    const { shown, hook } = await hookOf(deps.orm.em.fork(), req, session);
    send(res, 200, deleteWebhookPage({ app: shown, hook, csrf: session.csrf }));
  }));

  r.post(`${base}/:id/delete`, act('webhook-forms', async (req, res, session) => {
    const em = deps.orm.em.fork();
    const { shown, app } = await appOf(em, req, session);
    await deleteWebhook(em, app, hookId(req));
    res.redirect(303, `${appPath(shown.clientId)}?webhook-deleted=1`);
  }));

  r.post(`${base}/:id/resume`, act('webhook-forms', async (req, res, session) => {
    const em = deps.orm.em.fork();
    const { shown, app } = await appOf(em, req, session);
    const hook = await resumeWebhook(em, app, hookId(req));
    res.redirect(303, `${webhookPath(shown.clientId, hook.id)}?resumed=1`);
  }));

  r.post(`${base}/:id/rotate-secret`, act('webhook-forms', async (req, res, session) => {
    const em = deps.orm.em.fork();
    const { shown, app } = await appOf(em, req, session);
    const rotated = await rotateWebhookSecret(em, app, hookId(req));
    handOver(res, keys(session), secretAt(shown.clientId, rotated.id), rotated.secret);
    res.redirect(303, `${webhookPath(shown.clientId, rotated.id)}?rotated=1`);
  }));

  r.post(`${base}/:id/test`, act('webhook-page-test', async (req, res, session) => {
    const em = deps.orm.em.fork();
    const { shown, app } = await appOf(em, req, session);
    const id = hookId(req);
    const result = await sendTestMessage(em, app, id, deps.settings);
    handOver(res, keys(session), testAt(shown.clientId, id), JSON.stringify(result));
    res.redirect(303, webhookPath(shown.clientId, String(id)));
  }));

  r.get(`${base}/:id/deliveries`, view(async (req, res, session) => {
    const em = deps.orm.em.fork();
    const { shown, app, id, hook } = await hookOf(em, req, session);
    const before = req.query.before;
    if (before !== undefined && (typeof before !== 'string' || !/^[1-9][0-9]{0,14}$/.test(before))) throw notFound('page');
    const log = await webhookDeliveries(em, app, id, { before: before === undefined ? undefined : Number(before) });
    send(res, 200, deliveriesPage({ app: shown, hook, page: log, first: before === undefined }));
  }));

  return r;
}
