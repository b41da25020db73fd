// Opening a live event stream, one way for both transports that carry it: GET /playback/events (sse.ts)
// and the /trpc subscription `platform.playback.events`. The token must still stand (read with the
// statement the watch repeats, so a password set from here on ends the stream); the stream opens
// (core/events/live-stream.ts), or is refused with 503 while live delivery is down, never opened with
// nothing behind it; it is then watched (stream-watch.ts: it ends once its token no longer stands) and
// ended by shutdown with a quick reconnection (the client comes back to another instance and replays).
import type { MikroORM } from '@mikro-orm/postgresql';
import { ApiError } from '../core/errors.ts';
import type { EventBus } from '../core/events/bus.ts';
import { LiveStream, StreamUnavailable, type OpenStream } from '../core/events/live-stream.ts';
import type { Logger } from '../core/log.ts';
import type { Drain } from './drain.ts';
import { StreamWatch } from './stream-watch.ts';

/** Seconds a client told that live events are unavailable waits before it tries again. */
const UNAVAILABLE_RETRY_S = 2;

export type LiveEventsDeps = { orm: MikroORM; log: Logger; events: EventBus; drain?: Drain | undefined };

/** One per app (instance): its watch re-checks the tokens of this instance's open streams, whichever transport opened them. */
export function liveEvents(deps: LiveEventsDeps): OpenStream {
  const watch = new StreamWatch(deps.orm, deps.log);
  return async ({ userId, scopes, tokenKey, after, requestId, sink }) => {
    const standing = await watch.standing(tokenKey);
    if (!standing) throw new ApiError('invalid_token', 'The access token is no longer valid');
    const stream = new LiveStream(sink, { userId, scopes }, { orm: deps.orm, log: deps.log, events: deps.events, requestId });
    try {
      await stream.open(after);
    } catch (err) {
      const unavailable = err instanceof StreamUnavailable;
      deps.log[unavailable ? 'warn' : 'error']({ request_id: requestId, err }, 'event stream could not open');
      if (unavailable) throw new ApiError('server_error', 'Live events are unavailable right now; retry shortly', { retry_after: UNAVAILABLE_RETRY_S }, 503);
      throw err;
    }
    const forgetDrain = deps.drain?.onDrain(() => stream.resume('server shutting down'));
    if (forgetDrain) stream.onEnd(forgetDrain);
    stream.onEnd(
      watch.add({
        tokenKey,
        passwordMark: standing.passwordMark,
        end: (reason) => (reason === 'token' ? stream.close('access revoked') : stream.resume('signed out: the password was set')),
      }),
    );
    return stream;
  };
}
