// A logger that keeps what an app logged, to count and read its lines in a test.
import { Writable } from 'node:stream';
import { pino, type Logger } from 'pino';

/** A logger writing JSON lines into an array, to count what an instance logged. */
export function memoryLog(): { log: Logger; lines: Record<string, unknown>[] } {
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  return { log: pino({ level: 'info' }, sink), lines };
}
