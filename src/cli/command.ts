// What an admin CLI command is, and strict option parsing for commands.
import { parseArgs, type ParseArgsOptionsConfig } from 'node:util';
import type { Config } from '../config.ts';
import type { Database } from '../core/db/orm.ts';
import type { Logger } from '../core/log.ts';

export type CommandContext = { config: Config; log: Logger; argv: string[] };

export type Command = {
  usage: string;
  run(db: Database, ctx: CommandContext): Promise<unknown>;
};

/** A mistake in the command line: printed with the command's usage, exit 2. */
export class UsageError extends Error {}

export function parseOptions<T extends ParseArgsOptionsConfig>(argv: string[], options: T) {
  try {
    return parseArgs({ args: argv, options, allowPositionals: true, strict: true });
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
}
