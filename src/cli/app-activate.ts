// `app:activate CLIENT_ID` -> {"client_id","active":true}
import { setAppActive } from '../core/apps/service.ts';
import { onePositional, parseOptions, type Command } from './command.ts';

export const appActivateCommand: Command = {
  usage: 'app:activate CLIENT_ID',
  summary: 'Activate an app again: it may get tokens and its tokens work',
  options: [['CLIENT_ID', 'the app\'s client id (app_...)']],
  example: 'app:activate app_Q2xpZW50SWRFeGFtcGxlMDAx',
  async run(db, { argv }) {
    const clientId = onePositional(parseOptions(argv, {}).positionals, 'CLIENT_ID');
    const app = await setAppActive(db.orm.em.fork(), clientId, true);
    return { client_id: app.client_id, active: app.active };
  },
};
