// `db:serve`: serves the embedded database to every client (psql, pg_dump) until interrupted, for an
// operator who wants to look inside or back it up. Only with the server stopped: while the service
// owns the database, its socket admits this CLI alone, since PGlite has one session for every
// connection and another client's settings would become the service's (src/core/db/embedded-guard.ts).
import { noPositionals, parseOptions, UsageError, type Command } from './command.ts';

export const dbServeCommand: Command = {
  usage: 'db:serve',
  summary: 'Serve the embedded database to psql or pg_dump until interrupted (server stopped)',
  example: 'db:serve',
  async run(db, { argv }) {
    noPositionals(parseOptions(argv, {}).positionals);
    if (!db.embedded) throw new UsageError('db:serve is for the embedded database; with DATABASE_URL, connect to that PostgreSQL directly');
    if (!db.embedded.owner) throw new UsageError('the server is using the embedded database: stop it first, then run db:serve');
    db.embedded.openToAll();
    process.stderr.write(`serving the embedded database to every client until Ctrl-C: psql -h ${db.embedded.socketDir} -U postgres postgres\n`);
    await new Promise<void>((resolve) => {
      process.once('SIGINT', resolve);
      process.once('SIGTERM', resolve);
    });
    return { served: true };
  },
};
