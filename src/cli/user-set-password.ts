// `user:set-password --username U [--password P | --password-stdin]` -> {"id","username"}: for a user
// who forgot theirs. The same rules as user:create; the user's browser sessions end (core/accounts/
// set-password.ts says why their apps' tokens do not).
import { setUserPassword } from '../core/accounts/set-password.ts';
import { noPositionals, parseOptions, UsageError, type Command } from './command.ts';
import { PASSWORD_HELP, PASSWORD_OPTIONS, readPassword } from './password-input.ts';

export const userSetPasswordCommand: Command = {
  usage: 'user:set-password --username U [--password P | --password-stdin]',
  summary: 'Set a user\'s password and sign them out of every browser (their apps stay connected)',
  options: [['--username U', 'the user, in any case'], ...PASSWORD_HELP],
  example: 'user:set-password --username alice --password-stdin < new-password.txt',
  async run(db, { argv }) {
    const { values, positionals } = parseOptions(argv, { username: { type: 'string' }, ...PASSWORD_OPTIONS });
    noPositionals(positionals);
    if (values.username === undefined) throw new UsageError('--username is required');
    const user = await setUserPassword(db.orm.em.fork(), values.username, await readPassword(values));
    return { id: user.id, username: user.username };
  },
};
