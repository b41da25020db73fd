// GET /me/calendar.ics?token=...: the user's calendar feed as iCalendar text (core/calendar-feed). A plain
// Express route: the facade answers JSON only. The capability token in the query is the only credential
// it takes (an access token reads no feed); a token that names no feed, in any shape, is 404, the same
// answer whether it never existed, was rotated or deleted. Calendar apps poll: an ETag of the exact
// bytes, and If-None-Match naming it answered 304 (if-none-match.ts). Each fetch counts in the
// feed's bucket (`calendar-feed`, per token) after the pipeline's general ones. The token never reaches
// a log: the access log writes the path alone.
import { createHash } from 'node:crypto';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { MikroORM } from '@mikro-orm/postgresql';
import { feedCalendar } from '../core/calendar-feed/feed.ts';
import { CALENDAR_FEED_PATH, feedOwner, noteFetched } from '../core/calendar-feed/service.ts';
import { ApiError, notFound } from '../core/errors.ts';
import type { RateLimits } from '../core/limits/limiter.ts';
import { bucketsOf, tokenBucketId } from '../core/limits/table.ts';
import type { Logger } from '../core/log.ts';
import { PLATFORM_BASE } from './envelope.ts';
import { matchesIfNoneMatch } from './if-none-match.ts';
import { checkBuckets, clientIp } from './rate-limit.ts';

export type CalendarFeedDeps = { orm: MikroORM; log: Logger; baseUrl: string; limits?: RateLimits | undefined };

const etagOf = (body: string) => `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;

export function calendarFeed(deps: CalendarFeedDeps): RequestHandler {
  return async (req: Request, res: Response, next: NextFunction) => {
    try {
      req.route_label = `GET ${PLATFORM_BASE}${CALENDAR_FEED_PATH}`;
      const extra = Object.keys(req.query).find((k) => k !== 'token');
      if (extra !== undefined) throw new ApiError('invalid_request', `Unknown query parameter ${extra}: the feed takes its token alone`);
      const em = deps.orm.em.fork();
      const owner = await feedOwner(em, req.query.token);
      if (!owner) throw notFound('Calendar feed');
      if (deps.limits) {
        await checkBuckets(deps.limits, deps.log, res, bucketsOf(['calendar-feed'], { ip: clientIp(req), tokenId: tokenBucketId(String(req.query.token)) }));
      }
      const body = await feedCalendar(em, owner, { baseUrl: deps.baseUrl });
      // Only the time of a fetch: a database that cannot write still serves the feed.
      await noteFetched(em, owner).catch((err: unknown) => deps.log.warn({ request_id: req.id, err }, 'calendar feed fetch not recorded'));
      res.setHeader('Content-Type', 'text/calendar; charset=utf-8');
      res.setHeader('Cache-Control', 'private, no-cache');
      // Titles come from the catalog's provider: a browser opening the URL never reads them as a page.
      res.setHeader('X-Content-Type-Options', 'nosniff');
      const etag = etagOf(body);
      res.setHeader('ETag', etag);
      if (matchesIfNoneMatch(req.headers['if-none-match'], etag)) {
        res.status(304).end();
        return;
      }
      res.send(body);
    } catch (err) {
      next(err);
    }
  };
}
