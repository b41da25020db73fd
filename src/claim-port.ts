// The first thing start-up does (server.ts): listen on HOST:PORT (and HOST:TRAKT_API_PORT when set). A
// port another process holds, or one this user may not open, is found here, before the database is
// opened or migrated and before the demo account's password is printed; it stops start-up with one line naming the setting (START_EXIT.cannotClaim).
import type http from 'node:http';
import { START_EXIT, StartFailure } from './core/db/start-failure.ts';

function listenProblem(err: NodeJS.ErrnoException, host: string, port: number, setting: string): string {
  const where = `${setting} ${port} on HOST ${host}`;
  switch (err.code) {
    case 'EADDRINUSE':
      return `cannot listen on ${where}: the port is in use by another process; stop it or choose another ${setting}`;
    case 'EACCES':
      return `cannot listen on ${where}: permission denied (ports below 1024 need privileges); choose another ${setting}`;
    case 'EADDRNOTAVAIL':
      return `cannot listen on ${where}: ${host} is not an address of this machine; check HOST`;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `cannot listen on ${where}: the host name does not resolve; check HOST`;
    default:
      return `cannot listen on ${where}: ${err.code ?? err.message}`;
  }
}

/** `setting`: the variable the port comes from, named in the failure (PORT, or TRAKT_API_PORT for the facade's own listener). */
export function claimPort(server: http.Server, port: number, host: string, setting = 'PORT'): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const failed = (err: NodeJS.ErrnoException) => reject(new StartFailure(listenProblem(err, host, port, setting), START_EXIT.cannotClaim));
    server.once('error', failed);
    server.listen(port, host, () => {
      server.off('error', failed);
      resolve();
    });
  });
}
