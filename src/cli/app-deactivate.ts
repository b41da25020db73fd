// `app:deactivate CLIENT_ID` -> {"client_id","active":false}. The app gets no new tokens and the ones it
// holds stop working (the OAuth layer reads the flag).
import { setAppActive } from '../core/apps/service.ts';
import { onePositional, parseOptions, type Command } from './command.ts';

export const appDeactivateCommand: Command = {
  usage: 'app:deactivate CLIENT_ID',
  summary: 'Deactivate an app: no new tokens, the ones it holds stop working, its push devices go',
  options: [['CLIENT_ID', 'the app\'s client id (app_...)']],
  example: 'app:deactivate app_Q2xpZW50SWRFeGFtcGxlMDAx',
  async run(db, { argv }) {
    const clientId = onePositional(parseOptions(argv, {}).positionals, 'CLIENT_ID');
    const app = await setAppActive(db.orm.em.fork(), clientId, false);
    return { client_id: app.client_id, active: app.active };
  },
};
