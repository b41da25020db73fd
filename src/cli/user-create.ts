// `user:create --username U [--password P | --password-stdin] [--display-name D]` -> {"id","username"}
import { createUser } from '../core/accounts/service.ts';
import { noPositionals, parseOptions, UsageError, type Command } from './command.ts';
import { PASSWORD_HELP, PASSWORD_OPTIONS, readPassword } from './password-input.ts';

export const userCreateCommand: Command = {
  usage: 'user:create --username U [--password P | --password-stdin] [--display-name D]',
  summary: 'Create a user who can sign in (the password from --password or stdin)',
  options: [
    ['--username U', '3 to 32 letters, digits, "_", "." or "-"; unique in any case'],
    ...PASSWORD_HELP,
    ['--display-name D', 'shown to others (default: the username)'],
  ],
  example: 'user:create --username alice --password-stdin < password.txt',
  async run(db, { argv }) {
    const { values, positionals } = parseOptions(argv, {
      username: { type: 'string' },
      ...PASSWORD_OPTIONS,
      'display-name': { type: 'string' },
    });
    noPositionals(positionals);
    if (values.username === undefined) throw new UsageError('--username is required');
    const user = await createUser(db.orm.em.fork(), {
      username: values.username,
      password: await readPassword(values),
      displayName: values['display-name'],
    });
    return { id: user.id, username: user.username };
  },
};
