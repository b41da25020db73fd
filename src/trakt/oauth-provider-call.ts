// Trakt's OAuth endpoints are answered by the authorization server's own endpoints, in process: the
// request, rewritten into the form the provider reads (as the platform's JSON shims do, src/oauth/
// shims.ts), goes through the provider's full middleware stack (its client authentication, grants,
// token storage and rotation, and the service's shaping: device polling pace, connected-app records),
// and the provider's answer comes back here instead of going out, to be told in Trakt's dialect.
//
// How, with the provider's supported hooks only: a provider middleware (`provider.use`) marks the
// facade's requests with Koa's `ctx.respond = false`, so Koa writes nothing and the context keeps the
// final status and body; the provider's `grant.error` event gives the error the provider raised with its
// detail (which device code failure it was: not found or already consumed), which its answer leaves out.
import type { IncomingMessage } from 'node:http';
import type { Request, Response } from 'express';
import type Provider from 'oidc-provider';
import type { KoaContextWithOIDC } from 'oidc-provider';
import { ApiError } from '../core/errors.ts';
import { atBaseUrl } from '../oauth/origin.ts';

type Callback = (req: Request, res: Response) => Promise<void>;

/** The provider's error as it raised it: its code, description and the detail it does not send. */
type ProviderError = { error: string; description: string; detail: string | undefined };

/** What the provider answered a request of the facade. */
export type ProviderAnswer = {
  status: number;
  /** The body after the service's shaping (src/oauth/shape.ts), or {} for none. */
  body: Record<string, unknown>;
  /** The error the provider raised, when it raised one (a `slow_down` is the service's shaping, not one). */
  error: ProviderError | undefined;
  /** When the access token of a token answer was issued (unix seconds). */
  issuedAt: number | undefined;
};

type Capture = { ctx?: KoaContextWithOIDC; error?: ProviderError };

/** The facade's requests in flight through the provider, by their Node request. */
const inFlight = new WeakMap<IncomingMessage, Capture>();
/** The provider's request handler with the capturing middleware, one per provider. */
const callbacks = new WeakMap<Provider, Callback>();

function callbackOf(provider: Provider): Callback {
  let callback = callbacks.get(provider);
  if (callback) return callback;
  provider.use(async (ctx, next) => {
    const capture = inFlight.get(ctx.req);
    if (capture) {
      capture.ctx = ctx as KoaContextWithOIDC;
      ctx.respond = false;
    }
    await next();
  });
  const recordError = (ctx: KoaContextWithOIDC, err: { error?: string; error_description?: string; error_detail?: string }) => {
    const capture = inFlight.get(ctx.req);
    if (capture) capture.error = { error: String(err.error), description: String(err.error_description ?? err.error), detail: err.error_detail };
  };
  // The endpoints the facade asks: token, device authorization, revocation.
  provider.on('grant.error', recordError);
  provider.on('device_authorization.error', recordError);
  provider.on('revocation.error', recordError);
  // Koa composes its middleware when a handler is made: this one includes the middleware above.
  callback = provider.callback() as unknown as Callback;
  callbacks.set(provider, callback);
  return callback;
}

/**
 * Sends `form` to the provider's endpoint at `path` (one of OAUTH_ROUTES) as a POST of this request,
 * and returns its answer. The request keeps its address (the provider records it) and is told the
 * public origin, as every request the provider serves is (origin.ts).
 */
export async function askProvider(provider: Provider, baseUrl: string, req: Request, res: Response, path: string, form: Record<string, string>): Promise<ProviderAnswer> {
  const capture: Capture = {};
  inFlight.set(req, capture);
  req.headers['content-type'] = 'application/x-www-form-urlencoded';
  // The provider answers errors as HTML to a client that prefers it; Trakt's clients read JSON.
  req.headers.accept = 'application/json';
  req.body = form;
  // Trakt's clients authenticate in the body; a bearer token some send along (the one that has just
  // expired, on a refresh) is no client credential, and the provider would refuse the request for it.
  delete req.headers.authorization;
  req.url = path;
  // The provider builds the URLs it hands out (verification_uri) below the mount path it finds on the
  // request: Express's `baseUrl` is the facade's, and the provider's endpoints are at the root.
  req.baseUrl = '';
  let done: Promise<void> | undefined;
  atBaseUrl((r, s) => {
    done = callbackOf(provider)(r, s);
  }, baseUrl)(req, res);
  await done;
  inFlight.delete(req);
  // An error past the provider's own handler (its storage failing) was written out by Koa itself.
  if (res.headersSent || !capture.ctx) throw new ApiError('server_error', 'The authorization server failed');
  const ctx = capture.ctx;
  // Koa set these for a body it did not send; Express sets its own for the answer the facade sends.
  res.removeHeader('content-type');
  res.removeHeader('content-length');
  const body = ctx.body && typeof ctx.body === 'object' && !Buffer.isBuffer(ctx.body) ? (ctx.body as Record<string, unknown>) : {};
  const accessToken = ctx.oidc?.entities?.AccessToken as { iat?: number } | undefined;
  return { status: ctx.status, body, error: capture.error, issuedAt: accessToken?.iat };
}
