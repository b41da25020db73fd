// `stats:rebuild [--user USERNAME|ID]` -> {"users","seconds"}: recomputes users' kept figures (the totals,
// per-title, per-day, month-genre and streak rows the profile and stats pages read, and the counts of
// the ratings, favourites and statuses lists) from their history, ratings and title states. For repairs
// (rows changed by hand, a restore, a write path that forgot its figures) and after an upgrade that old
// instances served through. Without --user every user, one transaction each, with progress on stderr
// (users done, as catalog:import shows its progress); the service keeps serving meanwhile.
import { findUserById, findUserByUsername } from '../core/accounts/service.ts';
import { rebuildAllUserFigures } from '../core/figures/rebuild-all.ts';
import { rebuildUserFigures } from '../core/figures/rebuild.ts';
import { noPositionals, parseOptions, UsageError, type Command } from './command.ts';
import { progressOn } from './progress.ts';

export const statsRebuildCommand: Command = {
  usage: 'stats:rebuild [--user USERNAME|ID]',
  summary: "Recompute users' kept figures (stats totals, days, streaks, list counts) from their history and ratings",
  options: [['--user USERNAME|ID', 'only this user, by username (any case) or id (default: every user, one at a time)']],
  example: 'stats:rebuild --user alice',
  async run(db, { argv }) {
    const { values, positionals } = parseOptions(argv, { user: { type: 'string' } });
    noPositionals(positionals);
    const em = db.orm.em.fork();
    const started = Date.now();
    const seconds = () => Math.round((Date.now() - started) / 100) / 10;
    if (values.user !== undefined) {
      const user = (await findUserByUsername(em, values.user)) ?? (await findUserById(em, values.user));
      if (!user) throw new UsageError(`no user named ${values.user}`);
      await rebuildUserFigures(em, user.id);
      return { users: 1, seconds: seconds() };
    }
    const progress = progressOn(process.stderr, 'users');
    try {
      const users = await rebuildAllUserFigures(em, (done, total) => progress.update(done, total, 'stats'));
      return { users, seconds: seconds() };
    } finally {
      progress.stop();
    }
  },
};
