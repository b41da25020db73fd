// `app:activate CLIENT_ID` -> {"client_id","active":true}
import { setAppActive } from '../core/apps/service.ts';
import { onePositional, parseOptions, type Command } from './command.ts';

export const appActivateCommand: Command = {
  usage: 'app:activate CLIENT_ID',
  async run(db, { argv }) {
    const clientId = onePositional(parseOptions(argv, {}).positionals, 'CLIENT_ID');
    const app = await setAppActive(db.orm.em.fork(), clientId, true);
    return { client_id: app.client_id, active: app.active };
  },
};
