// What `admin --help` and `admin <command> --help` print: on stdout with exit 0, since the operator
// asked for it (a mistake prints usage on stderr with exit 2 instead). Built from the commands alone,
// so help never needs the configuration or the database.
import type { Command } from './command.ts';

export const PREFIX = 'npm run --silent admin --';

/** `--help` or `-h` anywhere among a command's arguments asks for its help instead of running it. */
export const asksForHelp = (argv: string[]) => argv.includes('--help') || argv.includes('-h');

export function globalHelp(commands: Record<string, Command>): string {
  const width = Math.max(...Object.keys(commands).map((n) => n.length));
  return [
    `usage: ${PREFIX} <command> [options]`,
    '',
    'Commands:',
    ...Object.entries(commands).map(([name, c]) => `  ${name.padEnd(width)}  ${c.summary}`),
    '',
    `Run "${PREFIX} <command> --help" for a command's options and an example.`,
    'The result is one JSON object on stdout; progress and errors go to stderr.',
    'Exit status: 0 done, 1 refused (the message names the reason, e.g. not_found), 2 usage mistake.',
  ].join('\n');
}

export function commandHelp(name: string, command: Command): string {
  const options = command.options ?? [];
  const width = Math.max(0, ...options.map(([flag]) => flag.length));
  return [
    `usage: ${PREFIX} ${command.usage}`,
    '',
    `${name}: ${command.summary}`,
    ...(options.length ? ['', 'Options:', ...options.map(([flag, text]) => `  ${flag.padEnd(width)}  ${text}`)] : []),
    '',
    'Example:',
    `  ${PREFIX} ${command.example}`,
  ].join('\n');
}
