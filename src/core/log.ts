// Structured JSON logs (pino): one logger for the process, children per request or job.
import { pino, type Logger } from 'pino';

export type { Logger };

/** stderr: for the CLI, whose stdout carries only its JSON result. */
export function createLogger(level: string, opts: { stderr?: boolean } = {}): Logger {
  const options = {
    level,
    base: { service: 'media-tracking' },
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label: string) => ({ level: label }) },
  };
  return pino(options, pino.destination({ fd: opts.stderr ? 2 : 1, sync: true }));
}
