// Progress of a long command on stderr: a bar for a person at a terminal, JSON lines for a program
// reading a pipe or a log file (a bar's carriage returns are noise there). JSON lines are bounded: a
// source's first and last step, and at most one line a second between them, whatever the batch size.
import cliProgress from 'cli-progress';

export type Progress = {
  update(done: number, total: number | undefined, source: string): void;
  stop(): void;
};

export type ProgressKind = 'bar' | 'json-lines';

/** The chooser: a bar only when stderr is a terminal. */
export const progressKind = (isTTY: boolean | undefined): ProgressKind => (isTTY ? 'bar' : 'json-lines');

const JSON_LINE_INTERVAL_MS = 1000;

function barProgress(stream: NodeJS.WriteStream, unit: string): Progress {
  const bar = new cliProgress.SingleBar(
    { format: `{source} [{bar}] {value}/{total} ${unit}`, stream, hideCursor: true, noTTYOutput: false },
    cliProgress.Presets.shades_classic,
  );
  let current = '';
  return {
    update(done, total, source) {
      if (source !== current) {
        if (current) bar.stop();
        current = source;
        bar.start(total ?? done, done, { source });
      }
      bar.setTotal(Math.max(total ?? done, done));
      bar.update(done, { source });
    },
    stop: () => bar.stop(),
  };
}

/** `{"source","done","total"}` per line; `total` null while unknown. */
function jsonLineProgress(stream: NodeJS.WritableStream, now: () => number): Progress {
  let current = '';
  let pending: string | null = null;
  let written = '';
  let writtenAt = -Infinity;
  const flush = () => {
    // The importer reports a source's end twice (the last batch, then the final count): one line.
    if (pending !== null && pending !== written) {
      stream.write(`${pending}\n`);
      written = pending;
      writtenAt = now();
    }
    pending = null;
  };
  return {
    update(done, total, source) {
      const starts = source !== current;
      if (starts) flush(); // the previous source's last step
      current = source;
      pending = JSON.stringify({ source, done, total: total ?? null });
      if (starts || now() - writtenAt >= JSON_LINE_INTERVAL_MS) flush();
    },
    stop: flush,
  };
}

/** `unit`: what `done` and `total` count, as the bar names it. */
export function progressOn(stream: NodeJS.WriteStream, unit = 'titles'): Progress {
  return progressKind(stream.isTTY) === 'bar' ? barProgress(stream, unit) : jsonLineProgress(stream, Date.now);
}
