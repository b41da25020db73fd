// What an admin CLI command is, and strict option parsing for commands.
import { parseArgs, type ParseArgsOptionsConfig } from 'node:util';
import type { Config } from '../config.ts';
import type { Database } from '../core/db/orm.ts';
import type { Importers } from '../core/import/importers.ts';
import type { Logger } from '../core/log.ts';

/** `importers`: the import command's (run.ts CliDeps; default the real readers). */
type CommandContext = { config: Config; log: Logger; argv: string[]; importers?: Importers | undefined };

export type Command = {
  usage: string;
  /** One line for `admin --help`. */
  summary: string;
  /** Each option (or argument) and what it does, for `admin <command> --help`. */
  options?: ReadonlyArray<readonly [string, string]>;
  /** One command line as an operator would type it (after `npm run --silent admin --`). */
  example: string;
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

/** The one positional argument a command takes (e.g. a client id); anything else is a usage mistake. */
export function onePositional(positionals: string[], name: string): string {
  const [value, ...extra] = positionals;
  if (!value) throw new UsageError(`${name} is required`);
  if (extra.length) throw new UsageError(`unexpected argument: ${extra[0]}`);
  return value;
}

/** For commands that take options only. */
export function noPositionals(positionals: string[]): void {
  if (positionals.length) throw new UsageError(`unexpected argument: ${positionals[0]}`);
}
