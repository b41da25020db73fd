// A freshly initialised, empty PGlite cluster, made once per installed PGlite version when the project's
// packages are installed (`npm install` runs this file: package.json's postinstall), which the first
// embedded start loads instead of running initdb. PGlite's initdb starts a second PostgreSQL and an
// initdb program beside the first, each with its own WebAssembly memory: a peak RSS several times that
// of loading this archive (figures: docs/performance.md, 'Embedded cluster template'). Without the file (installed with
// --ignore-scripts, or it could not be written) a first start runs initdb as before.
//
// Only node builtins and PGlite here: the Dockerfile runs it before the rest of the sources are copied.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';

const require = createRequire(import.meta.url);

/** The installed PGlite's version: a cluster made by one version is loaded only by that version. */
function pgliteVersion(): string {
  // The package's entry is <package>/dist/index.js; its package.json is one level up.
  const pkg = path.join(path.dirname(require.resolve('@electric-sql/pglite')), '..', 'package.json');
  return (JSON.parse(fs.readFileSync(pkg, 'utf8')) as { version: string }).version;
}

/** Where the template of the installed PGlite lives: the install's own cache folder. */
export function templateFile(): string {
  return path.resolve(import.meta.dirname, '../../../node_modules/.cache/media-tracker', `pglite-${pgliteVersion()}-cluster.tar.gz`);
}

/** The template as PGlite's `loadDataDir` takes it, or undefined when there is none. */
export function readTemplate(): Blob | undefined {
  const file = templateFile();
  return fs.existsSync(file) ? new Blob([fs.readFileSync(file)]) : undefined;
}

/** Runs initdb in a throwaway in-memory PGlite and writes its data directory as the template. */
export async function writeTemplate(file = templateFile()): Promise<void> {
  const db = await PGlite.create();
  try {
    const archive = Buffer.from(await (await db.dumpDataDir('gzip')).arrayBuffer());
    fs.mkdirSync(path.dirname(file), { recursive: true });
    // Written aside, then renamed: a start never reads half a file.
    fs.writeFileSync(`${file}.tmp`, archive);
    fs.renameSync(`${file}.tmp`, file);
  } finally {
    await db.close();
  }
}

if (import.meta.main) {
  try {
    if (!fs.existsSync(templateFile())) await writeTemplate();
  } catch (err) {
    // An optimisation of the first start only: never fail an install for it.
    process.stderr.write(`embedded database template not written (a first embedded start will run initdb): ${(err as Error).message}\n`);
  }
}
