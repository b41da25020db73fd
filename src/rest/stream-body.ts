// Writing a response body that is produced piece by piece (the full export): each piece is written as it
// comes, and the next is asked for only once the socket has taken the one before (backpressure), so a
// slow client holds one page in memory, not the document. A client that goes away stops the producer.
// A failure after the status line was sent cannot become an error envelope: the connection is cut, so
// the client sees a truncated body (never a complete-looking one) and the failure is logged.
import { once } from 'node:events';
import type { Response } from 'express';
import type { Logger } from '../core/log.ts';

export async function streamBody(res: Response, pieces: AsyncIterable<string>, log: Logger, end: (chunk?: string) => void = (c) => void res.end(c)): Promise<void> {
  const iterator = pieces[Symbol.asyncIterator]();
  const closed = new Promise<void>((resolve) => res.once('close', resolve));
  try {
    for (;;) {
      if (res.destroyed) return;
      const next = await iterator.next();
      if (next.done) break;
      if (!res.write(next.value)) await Promise.race([once(res, 'drain'), closed]);
    }
    if (!res.destroyed) end();
  } catch (err) {
    log.error({ err }, 'streamed response failed');
    res.destroy();
  } finally {
    // Stops the producer (and its pages) when the loop left early: the client went away or a write failed.
    await iterator.return?.();
  }
}
