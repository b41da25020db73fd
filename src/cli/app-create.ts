// `app:create --name N --redirect-uri URI [--redirect-uri URI2] [--scopes "a b"] [--confidential] [--official]`
// -> {"client_id","client_secret" (null for public apps),"allowed_scopes":[...]}. The secret is shown only here.
import { createApp } from '../core/apps/service.ts';
import { noPositionals, parseOptions, UsageError, type Command } from './command.ts';

export const appCreateCommand: Command = {
  usage: 'app:create --name N --redirect-uri URI [--redirect-uri URI2]... [--scopes "profile:read history:read"] [--confidential] [--official]',
  summary: 'Register an OAuth app; prints its client id and (confidential apps) its secret, once',
  options: [
    ['--name N', 'shown on consent pages; 1 to 100 characters'],
    ['--redirect-uri URI', 'https, http on a loopback host, or a reverse-domain scheme; repeat for several'],
    ['--scopes "a b"', 'the scopes it may ask for, space-separated (default: all of them)'],
    ['--confidential', 'a server-side app with a client secret (default: public, PKCE only)'],
    ['--official', 'a first-party app: push devices and connected apps'],
  ],
  example: 'app:create --name "My TV app" --redirect-uri com.example.tv:/callback --scopes "profile:read history:write"',
  async run(db, { argv }) {
    const { values, positionals } = parseOptions(argv, {
      name: { type: 'string' },
      'redirect-uri': { type: 'string', multiple: true },
      scopes: { type: 'string' },
      confidential: { type: 'boolean' },
      official: { type: 'boolean' },
    });
    noPositionals(positionals);
    if (values.name === undefined) throw new UsageError('--name is required');
    if (!values['redirect-uri']?.length) throw new UsageError('--redirect-uri is required');
    // Space-delimited, as in an OAuth `scope` parameter; omitted means all 16.
    const scopes = values.scopes === undefined ? undefined : values.scopes.split(/\s+/).filter(Boolean);
    return createApp(db.orm.em.fork(), {
      name: values.name,
      redirectUris: values['redirect-uri'],
      scopes,
      confidential: values.confidential ?? false,
      official: values.official ?? false,
    });
  },
};
