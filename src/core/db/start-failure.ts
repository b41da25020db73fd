// Start-up failures the operator fixes outside the code: a database that does not exist or does not
// answer, a port another process holds. Like a bad configuration value (config.ts), each is ONE line on
// stderr naming the setting to look at, and an exit code of its own (the README's table), never a
// stack trace or a JSON fatal: the process entries (serve.ts, cli/run.ts) print `message` and exit
// with `exitCode`. Nothing of a URL's password ever goes into the line (redactUrl).

/** The process's exit code for each kind of start-up failure. */
export const START_EXIT = {
  /** A configuration value is invalid (config.ts). */
  configuration: 1,
  /** A database or service the configuration names does not answer, or refuses the credentials. */
  unreachable: 3,
  /** The database DATABASE_URL names does not exist on its server (and DATABASE_CREATE is not true). */
  missingDatabase: 4,
  /** HOST:PORT cannot be claimed (in use, not permitted, no such address), or DATA_DIR is another running server's. */
  cannotClaim: 5,
} as const;

export class StartFailure extends Error {
  readonly exitCode: number;

  constructor(message: string, exitCode: number) {
    super(message);
    this.name = 'StartFailure';
    this.exitCode = exitCode;
  }
}

/** `url` with its password (if any) replaced by `***`, for messages and logs. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return '(unparseable URL)';
  }
}

/** What a failed connection attempt means, in a few words, from Node's and pg's error codes. */
export function connectionProblem(err: unknown): string {
  // Node tries each address of a name in turn (IPv6 and IPv4 for localhost): all failed, the first says why.
  const e = (err instanceof AggregateError && !(err as { code?: string }).code ? err.errors[0] : err) as { code?: string; message?: string };
  switch (e.code) {
    case 'ECONNREFUSED':
      return 'connection refused (nothing listens on that host and port)';
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return 'the host name does not resolve';
    case 'ETIMEDOUT':
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return 'the host cannot be reached';
    case 'ECONNRESET':
      return 'the server closed the connection';
    case '28P01':
    case '28000':
      return `the server refused the credentials (${e.message ?? e.code})`;
    default:
      // pg's own timeout and TLS errors carry no code; their message is one short line.
      return (e.message ?? String(err)).split('\n')[0]!;
  }
}
