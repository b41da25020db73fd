// How GET /playback/events writes a live stream (core/events/live-stream.ts) as server-sent events on an
// Express response: a head with the reconnection delay and, for a new client, an `id:` line saying where
// the stream starts; one block per event; comment lines as heartbeats; a last comment saying why it
// ended, with a short `retry:` when the client should come back at once. A client this far behind (bytes
// not yet sent) is dropped; it reconnects and replays. The stream ends after its lifetime or when the
// client goes away.
import type { Response } from 'express';
import type { StreamEvent } from '../core/events/bus.ts';
import { SSE_TIMING, type StreamSink } from '../core/events/live-stream.ts';

const MAX_BUFFERED_BYTES = 1024 * 1024;

function format(e: StreamEvent): string {
  return `id: ${e.id}\nevent: ${e.name}\ndata: ${JSON.stringify(e.data)}\n\n`;
}

/** A sink writing to `res`. */
export function sseResponseSink(res: Response): StreamSink {
  const timers: (() => void)[] = [];
  return {
    open(start, resumed, gone) {
      res.status(200);
      res.setHeader('Content-Type', 'text/event-stream; charset=utf-8');
      res.setHeader('Cache-Control', 'no-cache, no-transform');
      res.setHeader('X-Accel-Buffering', 'no');
      res.flushHeaders();
      // The id line: a client that reconnects before any event still says where it was (an empty log is 0).
      res.write(`retry: ${SSE_TIMING.retryMs}\n${resumed ? '' : `id: ${start}\n`}: connected\n\n`);
      // The response's close: the client went away (the request's own close fires once its body is read).
      res.on('close', gone);
      const heartbeat = setInterval(() => res.write(': heartbeat\n\n'), SSE_TIMING.heartbeatMs);
      const lifetime = setTimeout(gone, SSE_TIMING.maxStreamMs);
      timers.push(() => clearInterval(heartbeat), () => clearTimeout(lifetime));
    },
    send(e) {
      res.write(format(e));
      return res.writableLength <= MAX_BUFFERED_BYTES;
    },
    end(how, reason) {
      for (const clear of timers) clear();
      if (how === 'close') res.write(`: ${reason}\n\n`);
      if (how === 'resume') res.write(`retry: ${SSE_TIMING.resumeRetryMs}\n: ${reason}; reconnect\n\n`);
      res.end();
    },
  };
}
