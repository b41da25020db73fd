// Where webhooks may go (src/core/webhooks/destination.ts): without WEBHOOK_ALLOW_PRIVATE, only https
// URLs whose host is, or resolves only to, public unicast addresses, however an address is spelled.
// Nothing here connects anywhere: names resolve through a resolver the test gives, or /etc/hosts.
import { describe, expect, it, vi } from 'vitest';
import { ApiError } from '../../src/core/errors.ts';
import { checkDestination, DestinationRefused, refusedAddress, resolveDestination, type Resolver } from '../../src/core/webhooks/destination.ts';
import { postMessage } from '../../src/core/webhooks/send.ts';

const strict = { allowPrivate: false };

async function refusal(url: string, resolve?: Resolver): Promise<string> {
  try {
    await checkDestination(url, { ...strict, resolve });
  } catch (err) {
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).code).toBe('invalid_request');
    return (err as ApiError).message;
  }
  throw new Error(`${url} was accepted`);
}

const resolvesTo = (...addresses: string[]): Resolver => async () => addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));

describe('addresses', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.1.2.3', 'loopback'],
    ['::1', 'loopback'],
    ['10.0.0.1', 'private'],
    ['172.16.5.4', 'private'],
    ['192.168.1.1', 'private'],
    ['169.254.169.254', 'linkLocal'],
    ['fe80::1', 'linkLocal'],
    ['fd00::1', 'uniqueLocal'],
    ['0.0.0.0', 'unspecified'],
    ['::', 'unspecified'],
    ['100.64.0.1', 'carrierGradeNat'],
    ['224.0.0.1', 'multicast'],
    ['255.255.255.255', 'broadcast'],
    ['240.0.0.1', 'reserved'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:10.1.1.1', 'private'],
    ['64:ff9b::a00:1', 'rfc6052'],
    ['2002:a00:1::', '6to4'],
  ])('%s is refused (%s)', (address, range) => {
    expect(refusedAddress(address)).toBe(range);
  });

  it.each(['93.184.215.14', '2606:4700:4700::1111', '::ffff:93.184.215.14'])('%s is public unicast', (address) => {
    expect(refusedAddress(address)).toBeNull();
  });
});

describe('URLs at subscribe time', () => {
  it.each([
    ['https://127.0.0.1/hooks', 'resolves to 127.0.0.1 (loopback)'],
    ['https://[::1]/hooks', 'resolves to ::1 (loopback)'],
    ['https://10.1.2.3/hooks', '(private)'],
    ['https://169.254.169.254/latest/meta-data/', '(linkLocal)'],
    ['https://[::ffff:127.0.0.1]/hooks', '(loopback)'],
    // Decimal, octal and hexadecimal spellings are the address they spell.
    ['https://2130706433/hooks', 'resolves to 127.0.0.1 (loopback)'],
    ['https://0177.0.0.1/hooks', 'resolves to 127.0.0.1 (loopback)'],
    ['https://0x7f.1/hooks', 'resolves to 127.0.0.1 (loopback)'],
    ['https://0/hooks', '(unspecified)'],
  ])('%s is refused', async (url, why) => {
    expect(await refusal(url)).toContain(why);
  });

  it('a name is judged by every address it resolves to', async () => {
    expect(await refusal('https://localhost/hooks')).toMatch(/^url: localhost resolves to (127\.0\.0\.1|::1) \(loopback\), which webhooks may not reach$/);
    expect(await refusal('https://hooks.example.test/', resolvesTo('10.0.0.7'))).toBe('url: hooks.example.test resolves to 10.0.0.7 (private), which webhooks may not reach');
    // One private address among public ones is enough to refuse it.
    expect(await refusal('https://hooks.example.test/', resolvesTo('93.184.215.14', '192.168.0.10'))).toContain('192.168.0.10 (private)');
    expect(await refusal('https://hooks.example.test/', resolvesTo())).toBe('url: hooks.example.test does not resolve');
    const failing: Resolver = async () => {
      throw Object.assign(new Error('getaddrinfo ENOTFOUND'), { code: 'ENOTFOUND' });
    };
    expect(await refusal('https://nowhere.example.test/', failing)).toBe('url: nowhere.example.test does not resolve');
    const url = await checkDestination('https://hooks.example.test/in?x=1', { ...strict, resolve: resolvesTo('93.184.215.14', '2606:4700:4700::1111') });
    expect(url.href).toBe('https://hooks.example.test/in?x=1');
  });

  it.each([
    ['http://hooks.example.test/', 'url: must be https (the messages carry users\' data)'],
    ['ftp://hooks.example.test/', 'url: must be an http(s) URL'],
    ['hooks.example.test/in', 'url: must be an absolute http(s) URL'],
    ['https://user:secret@hooks.example.test/', 'url: must not carry a user name or password'],
    ['https://hooks.example.test/#part', 'url: must not carry a fragment'],
    [`https://hooks.example.test/${'a'.repeat(2000)}`, 'url: must be at most 2000 characters'],
  ])('%s: %s', async (url, message) => {
    expect(await refusal(url, resolvesTo('93.184.215.14'))).toBe(message);
  });

  it('WEBHOOK_ALLOW_PRIVATE allows loopback, private addresses and plain http, without resolving', async () => {
    const never: Resolver = async () => {
      throw new Error('not asked');
    };
    for (const url of ['http://127.0.0.1:8080/hooks', 'https://10.0.0.1/', 'http://localhost/']) {
      expect((await checkDestination(url, { allowPrivate: true, resolve: never })).href).toBe(new URL(url).href);
    }
  });
});

describe('a resolver that never answers', () => {
  it('is given up on after 5 s: the name does not resolve', async () => {
    vi.useFakeTimers();
    try {
      const hung: Resolver = () => new Promise(() => {});
      const refused = resolveDestination(new URL('https://slow.example.test/'), { ...strict, resolve: hung });
      const settled = expect(refused).rejects.toThrow('slow.example.test does not resolve');
      await vi.advanceTimersByTimeAsync(5_000);
      await settled;
    } finally {
      vi.useRealTimers();
    }
  });
});

describe('at delivery', () => {
  it('the name is resolved again: a host that now resolves privately (DNS rebinding) is refused before any connection', async () => {
    let calls = 0;
    const rebinding: Resolver = async () => (++calls === 1 ? [{ address: '93.184.215.14', family: 4 }] : [{ address: '127.0.0.1', family: 4 }]);
    await checkDestination('https://rebind.example.test/hooks', { ...strict, resolve: rebinding });
    const attempt = await postMessage(new URL('https://rebind.example.test/hooks'), '{}', {}, { ...strict, timeoutMs: 1000, resolve: rebinding });
    expect(attempt).toEqual({ status: null, error: 'destination refused: rebind.example.test resolves to 127.0.0.1 (loopback), which webhooks may not reach', durationMs: expect.any(Number) });
  });

  it('answers the checked address to the connection, whatever the name resolves to later', async () => {
    const to = await resolveDestination(new URL('https://hooks.example.test/'), { ...strict, resolve: resolvesTo('93.184.215.14') });
    expect(to).toEqual({ address: '93.184.215.14', family: 4 });
    expect(await resolveDestination(new URL('https://127.0.0.1/'), { allowPrivate: true })).toBeNull();
    await expect(resolveDestination(new URL('https://127.0.0.1/'), strict)).rejects.toBeInstanceOf(DestinationRefused);
  });
});
