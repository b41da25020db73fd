// A test-only importer: a JSON-lines file, one ImportRecord per line, to drive import runs end to end
// (the page, the job, the CLI) whatever the real readers do: tests give jsonLinesImporters to the app
// (startTestApp's deps), to a run (advanceRun's options) or to the CLI (cli-main.ts). Two kinds of line
// steer it:
//   {"fail": "why"}   the file is refused there (ImportFileError), as a reader refuses a truncated file;
//   {"pause": n}      the n-th reader to reach it (1: the checking pass, 2: the writing pass) waits
//                     there until the test calls releasePause(), once armPause() armed it.
// A line that is not JSON is refused too, naming its line.
import type { Importers } from '../../src/core/import/importers.ts';
import { ImportFileError, type Importer, type ImportRecord } from '../../src/core/import/records.ts';

let release: (() => void) | undefined;
let paused: Promise<void> | undefined;
let pausedAt: (() => void) | undefined;
let reached = 0;

/** Arms the pause line; resolves once a reader waits there. */
export function armPause(): Promise<void> {
  reached = 0;
  paused = new Promise((resolve) => (release = resolve));
  return new Promise((resolve) => (pausedAt = resolve));
}

export function releasePause(): void {
  release?.();
  paused = undefined;
}

const jsonLinesImporter: Importer = async function* (file) {
  const decoder = new TextDecoder();
  let text = '';
  let line = 0;
  const parse = async function* (raw: string): AsyncGenerator<ImportRecord> {
    line += 1;
    if (!raw.trim()) return;
    let value: Record<string, unknown>;
    try {
      value = JSON.parse(raw) as Record<string, unknown>;
    } catch {
      throw new ImportFileError(`line ${line} is not JSON: not a file of this format`);
    }
    if (typeof value.fail === 'string') throw new ImportFileError(value.fail);
    if (typeof value.pause === 'number') {
      if (paused && ++reached === value.pause) {
        pausedAt?.();
        await paused;
      }
      return;
    }
    yield value as ImportRecord;
  };
  for await (const chunk of file) {
    text += decoder.decode(chunk, { stream: true });
    let nl;
    while ((nl = text.indexOf('\n')) >= 0) {
      const raw = text.slice(0, nl);
      text = text.slice(nl + 1);
      yield* parse(raw);
    }
  }
  text += decoder.decode();
  if (text) yield* parse(text);
};

/** Every source reads JSON lines. */
export const jsonLinesImporters: Importers = { trakt: jsonLinesImporter, letterboxd: jsonLinesImporter, simkl: jsonLinesImporter, own: jsonLinesImporter };

/** The file of these records (and steering lines), one per line. */
export const jsonLines = (lines: readonly unknown[]) => `${lines.map((l) => JSON.stringify(l)).join('\n')}\n`;
