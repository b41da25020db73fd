// `list:import --user U --source letterboxd|trakt --file PATH [--name N] [--public]` -> the List: makes
// an externally managed list for a user from a list file exported from another tracker (read locally;
// nothing is downloaded). The list-sync job re-reads the file; the list is read-only through the API.
import fs from 'node:fs';
import path from 'node:path';
import { findUserByUsername } from '../core/accounts/service.ts';
import { EXTERNAL_SOURCES, localFile } from '../core/lists/external.ts';
import { createExternalList } from '../core/lists/write.ts';
import { noPositionals, parseOptions, UsageError, type Command } from './command.ts';

export const listImportCommand: Command = {
  summary: 'Make a read-only list for a user from a Letterboxd or Trakt export file (re-read by a job)',
  options: [
    ['--user USERNAME', 'the list\'s owner'],
    ['--source NAME', 'the file\'s format'],
    ['--file PATH', 'the exported file, read locally (nothing is downloaded)'],
    ['--name NAME', 'the list\'s name (default: "Imported from <source>")'],
    ['--public', 'anyone may see it (default: private)'],
  ],
  example: 'list:import --user alice --source letterboxd --file ./watchlist.csv --public',
  usage: `list:import --user USERNAME --source ${Object.keys(EXTERNAL_SOURCES).join('|')} --file PATH [--name NAME] [--public]`,
  async run(db, { argv }) {
    const { values, positionals } = parseOptions(argv, {
      user: { type: 'string' },
      source: { type: 'string' },
      file: { type: 'string' },
      name: { type: 'string' },
      public: { type: 'boolean' },
    });
    noPositionals(positionals);
    if (!values.user) throw new UsageError('--user is required');
    if (!values.source || !Object.hasOwn(EXTERNAL_SOURCES, values.source)) throw new UsageError(`--source must be one of ${Object.keys(EXTERNAL_SOURCES).join(', ')}`);
    if (!values.file) throw new UsageError('--file is required');
    let file: string;
    try {
      file = localFile(values.file.startsWith('file:') ? values.file : path.resolve(values.file));
    } catch (err) {
      throw new UsageError((err as Error).message);
    }
    if (!fs.existsSync(file)) throw new UsageError(`no such file: ${file}`);
    const name = (values.name ?? `Imported from ${values.source}`).trim();
    if (name.length < 1 || name.length > 100) throw new UsageError('--name must be 1 to 100 characters');
    const em = db.orm.em.fork();
    const user = await findUserByUsername(em, values.user);
    if (!user) throw new UsageError(`no user named ${values.user}`);
    return createExternalList(em, user.id, { name, source: values.source, url: file, isPublic: values.public ?? false });
  },
};
