// The admin CLI's command line: help, the command's options, the database opened and migrated, the
// command run; its result as one JSON object on stdout, mistakes and failures on stderr with the exit code.
import { loadConfigOrExit } from '../config.ts';
import { openDatabase, migrate, type Database } from '../core/db/orm.ts';
import type { Importers } from '../core/import/importers.ts';
import { createLogger } from '../core/log.ts';
import { ApiError } from '../core/errors.ts';
import { commands } from './commands.ts';
import { asksForHelp, commandHelp, globalHelp, PREFIX } from './help.ts';
import { UsageError } from './command.ts';
import { StartFailure } from '../core/db/start-failure.ts';

/** What the commands work with besides the configuration: the CLI as deployed gives none (the defaults). */
export type CliDeps = {
  /** The import command's importer of each source (default the real readers, core/import/importers.ts). */
  importers?: Importers;
};

function usage(): string {
  return `usage: ${PREFIX} <command>\n${Object.values(commands)
    .map((c) => `  ${c.usage}`)
    .join('\n')}\nRun "${PREFIX} --help" for what each command does.`;
}

/** Runs one command line (`argv`: after the program's name); the process's exit code. */
export async function runCli(argv: string[], deps: CliDeps = {}): Promise<number> {
  const [name, ...rest] = argv;
  // Help is answered before the configuration is read or the database opened: it needs neither.
  if (name === '--help' || name === '-h' || name === 'help') {
    process.stdout.write(`${globalHelp(commands)}\n`);
    return 0;
  }
  const command = name ? commands[name] : undefined;
  if (!command) {
    process.stderr.write(`${name ? `unknown command: ${name}\n` : ''}${usage()}\n`);
    return 2;
  }
  if (asksForHelp(rest)) {
    process.stdout.write(`${commandHelp(name!, command)}\n`);
    return 0;
  }
  const config = loadConfigOrExit();
  // Logs go to stderr (fd 2) so stdout carries only the result.
  const log = createLogger(config.logLevel === 'info' ? 'warn' : config.logLevel, { stderr: true });
  let db: Database;
  try {
    db = await openDatabase({ databaseUrl: config.databaseUrl, createDatabase: config.databaseCreate, dataDir: config.dataDir, preparedStatements: config.preparedStatements, log, poolMax: 4 });
  } catch (err) {
    // A database that does not answer or does not exist: the same one line and exit code as the server's.
    if (!(err instanceof StartFailure)) throw err;
    process.stderr.write(`${err.message}\n`);
    return err.exitCode;
  }
  try {
    // Every command but `migrate` itself works on an up-to-date schema.
    if (name !== 'migrate') await migrate(db.orm);
    const result = await command.run(db, { config, log, argv: rest, importers: deps.importers });
    process.stdout.write(`${JSON.stringify(result)}\n`);
    return 0;
  } catch (err) {
    if (err instanceof UsageError) {
      process.stderr.write(`${err.message}\nusage: ${PREFIX} ${command.usage}\n`);
      return 2;
    }
    // One line; an ApiError also names its machine code (e.g. conflict, not_found) for scripts.
    const code = err instanceof ApiError ? `${err.code}: ` : '';
    process.stderr.write(`${name} failed: ${code}${(err as Error).message}\n`);
    return 1;
  } finally {
    await db.close();
  }
}
