// `import --user U --source trakt|letterboxd|simkl|own --file PATH` -> the run's summary: imports a
// user's history, ratings, watchlist, statuses, favourites and lists from an export file, here and now,
// as /account/import does in the background (the same run: the user sees it on that page). Progress
// (bytes of the file read) on stderr; a file the source's reader refuses, or a run that stops, exits 1
// with the reason and what went in.
import fs from 'node:fs';
import path from 'node:path';
import { findUserByUsername } from '../core/accounts/service.ts';
import { IMPORT_SOURCES, type ImportSource } from '../core/import/records.ts';
import { importNow, type ImportSummary } from '../core/import/run.ts';
import { noPositionals, parseOptions, UsageError, type Command } from './command.ts';
import { progressOn } from './progress.ts';

/** The run failed: the message says why and what went in (the CLI prints it, exit 1). */
class ImportFailed extends Error {}

const countsText = (s: ImportSummary) => `run ${s.run}: ${s.imported} imported, ${s.alreadyThere} already there, ${s.unmatched} unmatched, ${s.invalid} invalid`;

export const importCommand: Command = {
  summary: "Import a user's history, ratings, watchlist, statuses and lists from an export file (Trakt, Letterboxd, Simkl, or this service's)",
  options: [
    ['--user USERNAME', 'whose account the file goes into'],
    ['--source NAME', `the file's format: ${IMPORT_SOURCES.join(', ')}`],
    ['--file PATH', 'the exported file, read locally'],
  ],
  example: 'import --user alice --source trakt --file ./trakt-export.json',
  usage: `import --user USERNAME --source ${IMPORT_SOURCES.join('|')} --file PATH`,
  async run(db, { argv, log, importers }) {
    const { values, positionals } = parseOptions(argv, { user: { type: 'string' }, source: { type: 'string' }, file: { type: 'string' } });
    noPositionals(positionals);
    if (!values.user) throw new UsageError('--user is required');
    const source = values.source;
    if (!source || !(IMPORT_SOURCES as readonly string[]).includes(source)) throw new UsageError(`--source must be one of ${IMPORT_SOURCES.join(', ')}`);
    if (!values.file) throw new UsageError('--file is required');
    const file = path.resolve(values.file);
    if (!fs.statSync(file, { throwIfNoEntry: false })?.isFile()) throw new UsageError(`no such file: ${file}`);
    const em = db.orm.em.fork();
    const user = await findUserByUsername(em, values.user);
    if (!user) throw new UsageError(`no user named ${values.user}`);
    const progress = progressOn(process.stderr, 'bytes');
    let summary: ImportSummary;
    try {
      summary = await importNow(
        em,
        // The operator's own file: no upload cap.
        { userId: user.id, source: source as ImportSource, fileName: path.basename(file), stream: fs.createReadStream(file), maxBytes: Number.MAX_SAFE_INTEGER },
        { log, importers, onProgress: (p) => progress.update(p.bytesRead, p.fileSize, 'import') },
      );
    } finally {
      progress.stop();
    }
    if (summary.status === 'failed') throw new ImportFailed(`${summary.error ?? 'the import failed'} (${countsText(summary)})`);
    return summary;
  },
};
