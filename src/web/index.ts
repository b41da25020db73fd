// The website as the HTTP app mounts it: the first-party web app at / (app-files.ts), the account pages under /account (the hub, sign-in and
// sign-out, connected apps, the export, imports, sign-up, and the developer apps with their webhooks when
// APP_REGISTRATION is open). It stands on the authorization server: the browser's session is the provider's (one sign-in),
// and its cookies and form tokens are signed with the provider's cookie key.
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Router } from 'express';
import type { Config } from '../config.ts';
import type { RateLimits } from '../core/limits/limiter.ts';
import type { Logger } from '../core/log.ts';
import type { OAuth } from '../oauth/index.ts';
import { signUpLink } from '../oauth/sign-up-handoff.ts';
import { strictRouter } from '../rest/routing.ts';
import { accountRoutes } from './account/account.ts';
import { appFiles } from './app-files.ts';
import { accountExportRoutes } from './account/account-export.ts';
import { developerAppRoutes } from './account/developer-apps.ts';
import { appWebhookRoutes } from './account/app-webhooks.ts';
import { importRoutes } from './account/imports.ts';
import { signUpRoutes } from './account/sign-up.ts';

export function webRoutes(deps: { orm: MikroORM; config: Config; log: Logger; limits: RateLimits; oauth: Pick<OAuth, 'provider' | 'cookieKey'> }): Router {
  const { orm, limits, log, config } = deps;
  const { provider, cookieKey: key } = deps.oauth;
  const router = strictRouter();
  const secure = config.baseUrl.startsWith('https:');
  const signups = config.signups === 'open';
  router.use(accountRoutes({ orm, provider, limits, log, key, secure, signUp: signUpLink(signups), appRegistration: config.appRegistration, origin: new URL(config.baseUrl).origin }));
  router.use(accountExportRoutes({ orm, provider, limits, log, key, secure, signUp: signUpLink(signups) }));
  router.use(signUpRoutes({ orm, provider, limits, key, secure, open: signups }));
  router.use(importRoutes({ orm, provider, limits, key, secure, maxBytes: config.importMaxBytes, signUp: signUpLink(signups) }));
  router.use(appFiles({ imageBaseUrl: config.imageBaseUrl }));
  if (config.appRegistration) router.use(developerAppRoutes({ orm, provider, limits, log, key, secure, signUp: signUpLink(signups) }));
  if (config.appRegistration) router.use(appWebhookRoutes({ orm, provider, limits, log, key, secure, signUp: signUpLink(signups), settings: config.webhooks }));
  return router;
}
