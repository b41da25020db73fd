// One structured log line per request, written when the response is finished (or the client went away).
import type { NextFunction, Request, Response } from 'express';
import type { Logger } from '../core/log.ts';
import { redactHookPath } from '../core/media-servers/secret.ts';

export function accessLog(log: Logger) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const start = process.hrtime.bigint();
    let written = false;
    const write = () => {
      if (written) return;
      written = true;
      const status = res.writableFinished ? res.statusCode : 499;
      const line = {
        request_id: req.id,
        method: req.method,
        route: req.route_label ?? null,
        // A receiver's secret is in its path: never in a log.
        path: redactHookPath(req.originalUrl.split('?')[0] ?? ''),
        status,
        duration_ms: Number(process.hrtime.bigint() - start) / 1e6,
        client_id: req.actor?.clientId ?? null,
        user_id: req.actor?.userId ?? null,
      };
      if (status >= 500) log.error(line, 'request');
      else log.info(line, 'request');
    };
    res.once('finish', write);
    res.once('close', write);
    next();
  };
}
