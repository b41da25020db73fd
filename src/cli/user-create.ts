// `user:create --username U --password P [--display-name D]` -> {"id","username"}
import { createUser } from '../core/accounts/service.ts';
import { noPositionals, parseOptions, UsageError, type Command } from './command.ts';

export const userCreateCommand: Command = {
  usage: 'user:create --username U --password P [--display-name D]',
  async run(db, { argv }) {
    const { values, positionals } = parseOptions(argv, {
      username: { type: 'string' },
      password: { type: 'string' },
      'display-name': { type: 'string' },
    });
    noPositionals(positionals);
    if (values.username === undefined) throw new UsageError('--username is required');
    if (values.password === undefined) throw new UsageError('--password is required');
    const user = await createUser(db.orm.em.fork(), {
      username: values.username,
      password: values.password,
      displayName: values['display-name'],
    });
    return { id: user.id, username: user.username };
  },
};
