// The operator's admin CLI: `npm run --silent admin -- <command> [options]`. The only thing written to
// stdout is one JSON object (the result); progress and errors go to stderr. Works in both database
// modes, and in embedded mode while the server runs (through the embedded database's socket).
import { loadConfigOrExit } from './config.ts';
import { openDatabase, migrate } from './core/db/orm.ts';
import { createLogger } from './core/log.ts';
import { ApiError } from './core/errors.ts';
import { appActivateCommand } from './cli/app-activate.ts';
import { appCreateCommand } from './cli/app-create.ts';
import { appDeactivateCommand } from './cli/app-deactivate.ts';
import { appRotateSecretCommand } from './cli/app-rotate-secret.ts';
import { catalogImportCommand } from './cli/catalog-import.ts';
import { dbServeCommand } from './cli/db-serve.ts';
import { listFeatureCommand, listUnfeatureCommand } from './cli/list-feature.ts';
import { listImportCommand } from './cli/list-import.ts';
import { jobsStatusCommand } from './cli/jobs-status.ts';
import { userCreateCommand } from './cli/user-create.ts';
import { UsageError, type Command } from './cli/command.ts';

const commands: Record<string, Command> = {
  migrate: {
    usage: 'migrate',
    run: async (db) => ({ applied: await migrate(db.orm) }),
  },
  'catalog:import': catalogImportCommand,
  'user:create': userCreateCommand,
  'app:create': appCreateCommand,
  'app:activate': appActivateCommand,
  'app:deactivate': appDeactivateCommand,
  'app:rotate-secret': appRotateSecretCommand,
  'list:feature': listFeatureCommand,
  'list:unfeature': listUnfeatureCommand,
  'list:import': listImportCommand,
  'jobs:status': jobsStatusCommand,
  'db:serve': dbServeCommand,
};

function usage(): string {
  return `usage: npm run --silent admin -- <command>\n${Object.values(commands)
    .map((c) => `  ${c.usage}`)
    .join('\n')}`;
}

async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  const command = name ? commands[name] : undefined;
  if (!command) {
    process.stderr.write(`${name ? `unknown command: ${name}\n` : ''}${usage()}\n`);
    return 2;
  }
  const config = loadConfigOrExit();
  // Logs go to stderr (fd 2) so stdout carries only the result.
  const log = createLogger(config.logLevel === 'info' ? 'warn' : config.logLevel, { stderr: true });
  const db = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, preparedStatements: config.preparedStatements, log, poolMax: 4 });
  try {
    // Every command but `migrate` itself works on an up-to-date schema.
    if (name !== 'migrate') await migrate(db.orm);
    const result = await command.run(db, { config, log, argv: rest });
    process.stdout.write(`${JSON.stringify(result)}\n`);
    return 0;
  } catch (err) {
    if (err instanceof UsageError) {
      process.stderr.write(`${err.message}\nusage: npm run --silent admin -- ${command.usage}\n`);
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

process.exitCode = await main(process.argv.slice(2));
