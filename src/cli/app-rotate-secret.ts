// `app:rotate-secret CLIENT_ID` -> {"client_id","client_secret"}. The old secret stops working at once;
// the new one is shown only here.
import { rotateSecret } from '../core/apps/service.ts';
import { onePositional, parseOptions, type Command } from './command.ts';

export const appRotateSecretCommand: Command = {
  usage: 'app:rotate-secret CLIENT_ID',
  summary: 'Replace a confidential app\'s secret (shown once; the old one stops working at once)',
  options: [['CLIENT_ID', 'the app\'s client id (app_...)']],
  example: 'app:rotate-secret app_Q2xpZW50SWRFeGFtcGxlMDAx',
  async run(db, { argv }) {
    const clientId = onePositional(parseOptions(argv, {}).positionals, 'CLIENT_ID');
    return { client_id: clientId, client_secret: await rotateSecret(db.orm.em.fork(), clientId) };
  },
};
