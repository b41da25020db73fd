// Where a command's password comes from: `--password P`, or one line of stdin (`--password-stdin`), so
// it need not appear in the shell's history or the process list. Without either, stdin is read when it
// is a pipe or a file (`echo "$PW" | admin user:create ...`); on a terminal that is a usage mistake,
// because a line typed there would be echoed (pass --password-stdin to type it anyway).
import { UsageError } from './command.ts';

export const PASSWORD_OPTIONS = {
  password: { type: 'string' },
  'password-stdin': { type: 'boolean' },
} as const;

export const PASSWORD_HELP = [
  ['--password P', 'the password (visible in the process list: prefer stdin)'],
  ['--password-stdin', 'read the password from the first line of stdin; also the default when stdin is not a terminal'],
] as const;

/** 'option': --password; 'stdin': read a line. Mistakes throw UsageError. */
export function passwordSource(values: { password?: string | undefined; 'password-stdin'?: boolean | undefined }, stdinIsTTY: boolean): 'option' | 'stdin' {
  if (values.password !== undefined && values['password-stdin']) throw new UsageError('give --password or --password-stdin, not both');
  if (values.password !== undefined) return 'option';
  if (values['password-stdin'] || !stdinIsTTY) return 'stdin';
  throw new UsageError('--password or --password-stdin is required');
}

/** The first line of the stream without its line ending ("\n" or "\r\n"); the rest is not read. */
async function readLine(input: NodeJS.ReadableStream): Promise<string> {
  let text = '';
  input.setEncoding('utf8');
  for await (const chunk of input) {
    text += chunk as string;
    if (text.includes('\n')) break;
  }
  const end = text.indexOf('\n');
  return (end < 0 ? text : text.slice(0, end)).replace(/\r$/, '');
}

export async function readPassword(values: { password?: string | undefined; 'password-stdin'?: boolean | undefined }): Promise<string> {
  if (passwordSource(values, process.stdin.isTTY === true) === 'option') return values.password!;
  const line = await readLine(process.stdin);
  if (line === '') throw new UsageError('the password read from stdin is empty');
  return line;
}
