// Every admin CLI command by name, in the order `admin --help` lists them.
import { migrate } from '../core/db/orm.ts';
import { appActivateCommand } from './app-activate.ts';
import { appCreateCommand } from './app-create.ts';
import { appDeactivateCommand } from './app-deactivate.ts';
import { appRotateSecretCommand } from './app-rotate-secret.ts';
import { catalogImportCommand } from './catalog-import.ts';
import { catalogRefreshCommand } from './catalog-refresh.ts';
import { dbServeCommand } from './db-serve.ts';
import { importCommand } from './import.ts';
import { listFeatureCommand, listUnfeatureCommand } from './list-feature.ts';
import { listImportCommand } from './list-import.ts';
import { jobsStatusCommand } from './jobs-status.ts';
import { statsRebuildCommand } from './stats-rebuild.ts';
import { userCreateCommand } from './user-create.ts';
import { userSetPasswordCommand } from './user-set-password.ts';
import type { Command } from './command.ts';

export const commands: Record<string, Command> = {
  migrate: {
    usage: 'migrate',
    summary: 'Apply the database migrations not applied yet (every other command does it first too)',
    example: 'migrate',
    run: async (db) => ({ applied: await migrate(db.orm) }),
  },
  'catalog:import': catalogImportCommand,
  'catalog:refresh': catalogRefreshCommand,
  'user:create': userCreateCommand,
  'user:set-password': userSetPasswordCommand,
  'app:create': appCreateCommand,
  'app:activate': appActivateCommand,
  'app:deactivate': appDeactivateCommand,
  'app:rotate-secret': appRotateSecretCommand,
  'list:feature': listFeatureCommand,
  'list:unfeature': listUnfeatureCommand,
  'list:import': listImportCommand,
  import: importCommand,
  'jobs:status': jobsStatusCommand,
  'stats:rebuild': statsRebuildCommand,
  'db:serve': dbServeCommand,
};

