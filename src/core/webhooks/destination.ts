// Where a webhook may be sent. A subscription names a URL; the service posts to it from inside the
// operator's network, so a URL must not reach what only that network reaches (the metadata service at
// 169.254.169.254, a database on 10.x, the service itself on loopback). The URL's form is checked when it
// is subscribed, and its host's addresses both then and at every delivery, after DNS resolution: every
// address must be public unicast, and the request connects to the address that was checked (the
// request's `lookup` is given it, send.ts), so a name that resolves elsewhere a second later (DNS
// rebinding) reaches nothing new. WEBHOOK_ALLOW_PRIVATE lets an operator (and the tests) send to
// private and loopback addresses, and over plain http.
import dns from 'node:dns/promises';
import net from 'node:net';
import ipaddr from 'ipaddr.js';
import { invalidRequest } from '../errors.ts';

export const URL_MAX = 2000;

/** A host's addresses, as dns.lookup({ all: true }) gives them (a test may give its own). */
export type Resolver = (hostname: string) => Promise<{ address: string; family: number }[]>;

const systemResolver: Resolver = (hostname) => dns.lookup(hostname, { all: true, verbatim: true });

/** A name that does not resolve within this long is refused (a hung resolver must not hold a delivery pass). */
const RESOLVE_TIMEOUT_MS = 5_000;

/** The resolver's answer, or a rejection once RESOLVE_TIMEOUT_MS has passed. */
function resolveWithin(resolve: Resolver, host: string): Promise<{ address: string; family: number }[]> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error('timeout')), RESOLVE_TIMEOUT_MS)));
  return Promise.race([resolve(host), late]).finally(() => clearTimeout(timer));
}

/** An address a request may connect to. */
export type Destination = { address: string; family: 4 | 6 };

/** A destination refused, with the reason shown in the delivery log. */
export class DestinationRefused extends Error {}

/**
 * The URL when its form may be subscribed (http(s), https unless private destinations are allowed, no
 * user name or password, no fragment); invalid_request naming the rule otherwise. The WHATWG parser
 * reads every spelling of an address (2130706433, 0177.0.0.1, 0x7f.1) as the address it is.
 */
function checkWebhookUrl(raw: string, allowPrivate: boolean): URL {
  if (raw.length > URL_MAX) throw invalidRequest(`url: must be at most ${URL_MAX} characters`);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw invalidRequest('url: must be an absolute http(s) URL');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw invalidRequest('url: must be an http(s) URL');
  if (url.protocol === 'http:' && !allowPrivate) throw invalidRequest('url: must be https (the messages carry users\' data)');
  if (url.username || url.password) throw invalidRequest('url: must not carry a user name or password');
  if (url.hash) throw invalidRequest('url: must not carry a fragment');
  if (!url.hostname) throw invalidRequest('url: must name a host');
  return url;
}

/** The host as an address or a name: brackets off an IPv6 literal. */
const hostOf = (url: URL) => url.hostname.replace(/^\[(.*)\]$/, '$1');

/**
 * Why this address may not be reached, or null when it is public unicast. An IPv4-mapped IPv6 address
 * is judged as the IPv4 address it carries; the IPv6 ranges that embed IPv4 addresses by translation
 * (6to4, Teredo, NAT64) are refused whole.
 */
export function refusedAddress(address: string): string | null {
  if (!ipaddr.isValid(address)) return 'not an IP address';
  const range = ipaddr.process(address).range();
  return range === 'unicast' ? null : range;
}

/**
 * The address to connect to for the URL: every address its host resolves to must be public unicast
 * (DestinationRefused otherwise, or when it resolves to nothing). Null when private destinations are
 * allowed: the request then resolves the host as usual.
 */
export async function resolveDestination(url: URL, opts: { allowPrivate: boolean; resolve?: Resolver | undefined }): Promise<Destination | null> {
  if (opts.allowPrivate) return null;
  const host = hostOf(url);
  let addresses: { address: string; family: number }[];
  if (net.isIP(host)) addresses = [{ address: host, family: net.isIP(host) }];
  else {
    try {
      addresses = await resolveWithin(opts.resolve ?? systemResolver, host);
    } catch {
      throw new DestinationRefused(`${host} does not resolve`);
    }
  }
  if (!addresses.length) throw new DestinationRefused(`${host} does not resolve`);
  for (const a of addresses) {
    const why = refusedAddress(a.address);
    if (why) throw new DestinationRefused(`${host} resolves to ${a.address} (${why}), which webhooks may not reach`);
  }
  const first = addresses[0]!;
  return { address: first.address, family: first.family === 6 ? 6 : 4 };
}

/** At subscribe time: the URL's form and its addresses; invalid_request saying what is wrong. */
export async function checkDestination(raw: string, opts: { allowPrivate: boolean; resolve?: Resolver | undefined }): Promise<URL> {
  const url = checkWebhookUrl(raw, opts.allowPrivate);
  try {
    await resolveDestination(url, opts);
  } catch (err) {
    if (err instanceof DestinationRefused) throw invalidRequest(`url: ${err.message}`);
    throw err;
  }
  return url;
}
