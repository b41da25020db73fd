// The admin CLI's user and app commands as an operator runs them: a separate process while the server
// runs (in embedded mode through the embedded database's socket), one JSON object on stdout.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findUserByUsername, verifyPassword } from '../src/core/accounts/service.ts';
import { query } from '../src/core/db/sql.ts';
import { upsertArtifact } from '../src/core/tokens/repository.ts';
import { findApp, verifyClientSecret } from '../src/core/apps/service.ts';
import { SCOPES } from '../src/core/apps/scopes.ts';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { runAdmin, runAdminWith, type CliRun } from './helpers/cli.ts';

let app: TestApp;

beforeAll(async () => {
  app = await startTestApp();
});
afterAll(() => app?.stop());

type Run = CliRun;

const admin = (...args: string[]) => runAdmin(app, ...args);

/** Exit 0, nothing on stderr, exactly one line of JSON on stdout. */
function result(r: Run): Record<string, unknown> {
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  expect(r.stdout.endsWith('\n')).toBe(true);
  expect(r.stdout.trim().split('\n')).toHaveLength(1);
  return JSON.parse(r.stdout) as Record<string, unknown>;
}

/** Exit 1 (an ApiError), nothing on stdout, one line on stderr naming the code. */
function failure(r: Run, code: string): void {
  expect(r.code).toBe(1);
  expect(r.stdout).toBe('');
  expect(r.stderr.trim().split('\n')).toHaveLength(1);
  expect(r.stderr).toContain(code);
}

/** Exit 2 (a usage mistake), nothing on stdout, the usage on stderr. */
function usageMistake(r: Run): void {
  expect(r.code).toBe(2);
  expect(r.stdout).toBe('');
  expect(r.stderr).toContain('usage');
}

const em = () => app.db.orm.em.fork();

describe('user:create', () => {
  it('creates a user the running server can sign in: {"id","username"}', async () => {
    const out = result(await admin('user:create', '--username', 'Erin', '--password', 'a long password', '--display-name', 'Erin E.'));
    expect(Object.keys(out).sort()).toEqual(['id', 'username']);
    expect(out.username).toBe('Erin');
    expect(out.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(await findUserByUsername(em(), 'erin')).toMatchObject({ id: out.id, display_name: 'Erin E.' });
    expect(await verifyPassword(em(), 'Erin', 'a long password')).toMatchObject({ id: out.id });
  });

  it('refuses a taken username in any case with exit 1 (conflict)', async () => {
    result(await admin('user:create', '--username', 'frank', '--password', 'password1'));
    failure(await admin('user:create', '--username', 'FRANK', '--password', 'password2'), 'conflict');
  });

  it('refuses a short password and a bad username with exit 1 (invalid_request)', async () => {
    failure(await admin('user:create', '--username', 'gina', '--password', 'short'), 'invalid_request');
    failure(await admin('user:create', '--username', 'no spaces allowed', '--password', 'password1'), 'invalid_request');
  });

  it('answers usage mistakes with exit 2', async () => {
    usageMistake(await admin('user:create', '--username', 'hank'));
    usageMistake(await admin('user:create', '--password', 'password1'));
    usageMistake(await admin('user:create', '--username', 'hank', '--password', 'password1', '--email', 'x'));
    usageMistake(await admin('user:create', '--username', 'hank', '--password', 'password1', 'extra'));
  });
});

describe('user:create with the password on stdin', () => {
  const withInput = (input: string, ...args: string[]) => runAdminWith(app, args, { input });

  it('--password-stdin reads the first line, without its line ending', async () => {
    const out = result(await withInput('a piped password\n', 'user:create', '--username', 'ivan', '--password-stdin'));
    expect(await verifyPassword(em(), 'ivan', 'a piped password')).toMatchObject({ id: out.id });
    result(await withInput('windows line\r\nsecond line\n', 'user:create', '--username', 'jill', '--password-stdin'));
    expect(await verifyPassword(em(), 'jill', 'windows line')).not.toBeNull();
  });

  it('reads stdin without the flag when it is not a terminal (a pipe here)', async () => {
    const out = result(await withInput('no newline at the end', 'user:create', '--username', 'kate'));
    expect(await verifyPassword(em(), 'kate', 'no newline at the end')).toMatchObject({ id: out.id });
  });

  it('an empty line, or both sources, is a usage mistake; a short one is refused like --password', async () => {
    usageMistake(await withInput('', 'user:create', '--username', 'liam', '--password-stdin'));
    usageMistake(await withInput('\npassword1\n', 'user:create', '--username', 'liam'));
    usageMistake(await withInput('password1\n', 'user:create', '--username', 'liam', '--password', 'password1', '--password-stdin'));
    failure(await withInput('short\n', 'user:create', '--username', 'liam', '--password-stdin'), 'invalid_request');
    expect(await findUserByUsername(em(), 'liam')).toBeNull();
  });
});

describe('user:set-password', () => {
  /** A browser signed in to the authorization server as the user (the provider's Session artifact). */
  const providerSession = (id: string, userId: string) =>
    upsertArtifact(em(), { id, model: 'Session', payload: { accountId: userId }, grantId: null, userCode: null, uid: null, expiresIn: 3600 });
  const artifacts = async (ids: string[]) =>
    (await query<{ id: string }>(em(), { text: `select id from oauth_artifact where id = any($1) order by id`, params: [ids] })).map((r) => r.id);

  it('sets the password (any case of the username): {"id","username"}; the user\'s browser sessions end, their apps\' grants stay', async () => {
    const { id } = result(await admin('user:create', '--username', 'Mona', '--password', 'old password'));
    const other = result(await admin('user:create', '--username', 'ned', '--password', 'password1'));
    await providerSession('set-pw-session-mona', id as string);
    await providerSession('set-pw-session-ned', other.id as string);
    await upsertArtifact(em(), { id: 'set-pw-grant-mona', model: 'Grant', payload: { accountId: id as string }, grantId: 'set-pw-grant', userCode: null, uid: null, expiresIn: 3600 });

    const out = result(await runAdminWith(app, ['user:set-password', '--username', 'MONA', '--password-stdin'], { input: 'a new password\n' }));
    expect(out).toEqual({ id, username: 'Mona' });
    expect(await verifyPassword(em(), 'mona', 'a new password')).toMatchObject({ id });
    expect(await verifyPassword(em(), 'mona', 'old password')).toBeNull();
    expect(await artifacts(['set-pw-session-mona', 'set-pw-session-ned', 'set-pw-grant-mona'])).toEqual(['set-pw-grant-mona', 'set-pw-session-ned']);
    result(await admin('user:set-password', '--username', 'mona', '--password', 'a third password'));
    expect(await verifyPassword(em(), 'Mona', 'a third password')).toMatchObject({ id });
  });

  it('an unknown user is exit 1 (not_found); a short password exit 1 (invalid_request); mistakes exit 2', async () => {
    failure(await admin('user:set-password', '--username', 'nobody_here', '--password', 'password1'), 'not_found');
    result(await admin('user:create', '--username', 'olga', '--password', 'password1'));
    failure(await admin('user:set-password', '--username', 'olga', '--password', 'short'), 'invalid_request');
    expect(await verifyPassword(em(), 'olga', 'password1')).not.toBeNull();
    usageMistake(await admin('user:set-password', '--password', 'password2'));
    usageMistake(await admin('user:set-password', '--username', 'olga'));
    usageMistake(await admin('user:set-password', '--username', 'olga', '--password', 'password2', 'extra'));
  });
});

describe('app:create', () => {
  it('creates a public app with all 16 scopes: {"client_id","client_secret":null,"allowed_scopes"}', async () => {
    const out = result(await admin('app:create', '--name', 'TV app', '--redirect-uri', 'com.example.tv:/callback'));
    expect(Object.keys(out).sort()).toEqual(['allowed_scopes', 'client_id', 'client_secret']);
    expect(out.client_id).toMatch(/^app_[A-Za-z0-9_-]{24}$/);
    expect(out.client_secret).toBeNull();
    expect(out.allowed_scopes).toEqual([...SCOPES]);
    expect(await findApp(em(), out.client_id as string)).toMatchObject({ confidential: false, official: false, active: true, redirect_uris: ['com.example.tv:/callback'] });
  });

  it('creates a confidential official app with chosen scopes and several redirect URIs', async () => {
    const out = result(
      await admin(
        'app:create', '--name', 'Web app',
        '--redirect-uri', 'https://web.example/cb', '--redirect-uri', 'http://127.0.0.1:8080/cb',
        '--scopes', 'profile:read history:read', '--confidential', '--official',
      ),
    );
    expect(typeof out.client_secret).toBe('string');
    expect(out.allowed_scopes).toEqual(['profile:read', 'history:read']);
    const stored = (await findApp(em(), out.client_id as string))!;
    expect(stored).toMatchObject({ confidential: true, official: true, redirect_uris: ['https://web.example/cb', 'http://127.0.0.1:8080/cb'] });
    expect(await verifyClientSecret(stored, out.client_secret as string)).toBe(true);
  });

  it('refuses unknown scopes, email:read and bad redirect URIs with exit 1 (invalid_request)', async () => {
    failure(await admin('app:create', '--name', 'x', '--redirect-uri', 'https://x.example/cb', '--scopes', 'profile:read bogus:scope'), 'invalid_request');
    failure(await admin('app:create', '--name', 'x', '--redirect-uri', 'https://x.example/cb', '--scopes', 'email:read'), 'invalid_request');
    failure(await admin('app:create', '--name', 'x', '--redirect-uri', 'http://x.example/cb'), 'invalid_request');
    failure(await admin('app:create', '--name', 'x', '--redirect-uri', 'https://x.example/cb#frag'), 'invalid_request');
  });

  it('answers usage mistakes with exit 2', async () => {
    usageMistake(await admin('app:create', '--name', 'No URI'));
    usageMistake(await admin('app:create', '--redirect-uri', 'https://x.example/cb'));
    usageMistake(await admin('app:create', '--name', 'x', '--redirect-uri', 'https://x.example/cb', '--public'));
  });
});

describe('app:activate, app:deactivate, app:rotate-secret', () => {
  it('deactivates and activates: {"client_id","active"}, seen by the running server', async () => {
    const { client_id } = result(await admin('app:create', '--name', 'Toggle', '--redirect-uri', 'https://t.example/cb')) as { client_id: string };
    const off = result(await admin('app:deactivate', client_id));
    expect(off).toEqual({ client_id, active: false });
    expect((await findApp(em(), client_id))!.active).toBe(false);
    const on = result(await admin('app:activate', client_id));
    expect(on).toEqual({ client_id, active: true });
    expect((await findApp(em(), client_id))!.active).toBe(true);
  });

  it('rotates a confidential secret: {"client_id","client_secret"}; the old one stops working', async () => {
    const created = result(await admin('app:create', '--name', 'Rotate', '--redirect-uri', 'https://r.example/cb', '--confidential')) as { client_id: string; client_secret: string };
    const rotated = result(await admin('app:rotate-secret', created.client_id));
    expect(Object.keys(rotated).sort()).toEqual(['client_id', 'client_secret']);
    expect(rotated.client_id).toBe(created.client_id);
    expect(rotated.client_secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const stored = (await findApp(em(), created.client_id))!;
    expect(await verifyClientSecret(stored, created.client_secret)).toBe(false);
    expect(await verifyClientSecret(stored, rotated.client_secret as string)).toBe(true);
  });

  it('refuses to rotate a public app (invalid_request) and unknown apps (not_found) with exit 1', async () => {
    const { client_id } = result(await admin('app:create', '--name', 'Public', '--redirect-uri', 'https://p.example/cb')) as { client_id: string };
    failure(await admin('app:rotate-secret', client_id), 'invalid_request');
    failure(await admin('app:rotate-secret', 'app_unknown'), 'not_found');
    failure(await admin('app:deactivate', 'app_unknown'), 'not_found');
    failure(await admin('app:activate', 'app_unknown'), 'not_found');
  });

  it('answers a missing or extra CLIENT_ID with exit 2', async () => {
    usageMistake(await admin('app:deactivate'));
    usageMistake(await admin('app:activate', 'a', 'b'));
    usageMistake(await admin('app:rotate-secret'));
  });
});
