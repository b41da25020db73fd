// `list:feature LIST_ID` / `list:unfeature LIST_ID` -> {"id","isFeatured"}: an operator marks a public
// list as featured (shown on the title detail of every title it holds) or unmarks it.
import { setFeatured } from '../core/lists/featured.ts';
import { onePositional, parseOptions, UsageError, type Command } from './command.ts';

function featureCommand(featured: boolean): Command {
  const name = featured ? 'list:feature' : 'list:unfeature';
  return {
    usage: `${name} LIST_ID`,
    summary: featured ? 'Feature a public list (shown on the detail of every title it holds)' : 'Stop featuring a list',
    options: [['LIST_ID', 'the list\'s id (a positive integer)']],
    example: `${name} 42`,
    async run(db, { argv }) {
      const id = onePositional(parseOptions(argv, {}).positionals, 'LIST_ID');
      if (!/^[1-9]\d{0,15}$/.test(id)) throw new UsageError(`LIST_ID must be a list id (a positive integer), not ${JSON.stringify(id)}`);
      return setFeatured(db.orm.em.fork(), id, featured);
    },
  };
}

export const listFeatureCommand = featureCommand(true);
export const listUnfeatureCommand = featureCommand(false);
