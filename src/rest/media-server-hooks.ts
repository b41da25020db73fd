// POST /hooks/media-server/{secret}/{kind}: where Plex, Jellyfin and Emby post their playback webhooks
// for a user's receiver (core/media-servers). An Express route beside the APIs: the servers post
// multipart forms and text/plain, which no procedure takes, and they authenticate with the secret in the
// URL alone. A secret that opens no receiver (wrong, rotated, deleted) is the 404 of any path that does
// not exist, found by its hash through a unique index. Each receiver counts its requests in the
// `media-server-hook` bucket. The answer is JSON: 200 with what became of the event (recorded, a
// duplicate, or ignored and why: never an error for a server to retry), 202 when its title is not in
// the catalog (deferred), 400 for a body that is no webhook of that server (naming the field).
import type { NextFunction, Request, Response, Router } from 'express';
import type { MikroORM } from '@mikro-orm/postgresql';
import { ApiError } from '../core/errors.ts';
import type { RateLimits } from '../core/limits/limiter.ts';
import { limitById } from '../core/limits/table.ts';
import type { Logger } from '../core/log.ts';
import { readPayload } from '../core/media-servers/payloads.ts';
import { receiveServerEvent } from '../core/media-servers/receive.ts';
import { receiverBySecretHash } from '../core/media-servers/repository.ts';
import { HOOKS_PATH, isSecretShaped, secretHash } from '../core/media-servers/secret.ts';
import { UnreadablePayload } from '../core/media-servers/server-event.ts';
import { MEDIA_SERVER_KINDS, type MediaServerKind } from '../core/schema/media-servers.ts';
import { failAndClose } from './body.ts';
import { readHookPayload } from './media-server-hooks-body.ts';
import { refuseNul } from './nul-guard.ts';
import { checkBuckets } from './rate-limit.ts';
import { noRoute, strictRouter } from './routing.ts';

type Deps = { orm: MikroORM; log: Logger; limits?: RateLimits | undefined };

const isKind = (s: string): s is MediaServerKind => (MEDIA_SERVER_KINDS as readonly string[]).includes(s);

/** The pipeline's NUL guard, run on the payload this route read itself: no NUL reaches the database. */
function refuseNulIn(req: Request, res: Response, payload: unknown): Promise<void> {
  req.body = payload;
  return new Promise((resolve, reject) => refuseNul(req, res, (err?: unknown) => (err ? reject(err as Error) : resolve())));
}

export function mediaServerHooks(deps: Deps): Router {
  const r = strictRouter();
  r.post(`${HOOKS_PATH}/:secret/:kind`, (req: Request, res: Response, next: NextFunction) => {
    req.route_label = `POST ${HOOKS_PATH}/{secret}/{kind}`;
    // A refusal may leave the body unread: the connection closes after the answer.
    const refuse = (err: ApiError) => failAndClose(req, res, next, err);
    (async () => {
      const secret = String(req.params.secret);
      const kind = String(req.params.kind);
      if (!isKind(kind) || !isSecretShaped(secret)) return refuse(noRoute(req));
      const em = deps.orm.em.fork();
      const receiver = await receiverBySecretHash(em, secretHash(secret));
      if (!receiver) return refuse(noRoute(req));
      if (deps.limits) await checkBuckets(deps.limits, deps.log, res, [{ limit: limitById('media-server-hook'), key: receiver.id }]);
      const payload = await readHookPayload(req);
      await refuseNulIn(req, res, payload);
      try {
        const outcome = await receiveServerEvent(em, receiver, kind, readPayload(kind, payload));
        res.status(outcome.outcome === 'deferred' ? 202 : 200).json({ ok: true, ...outcome });
      } catch (err) {
        if (err instanceof UnreadablePayload) throw new ApiError('invalid_request', err.message);
        throw err;
      }
    })().catch((err: unknown) => (err instanceof ApiError ? refuse(err) : next(err)));
  });
  return r;
}
