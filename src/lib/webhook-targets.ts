// Where deliveries may go. A subscription's URL is the administrator's, but the service makes the
// request from inside the network: a target on a private, loopback or link-local address would let
// a webhook probe or call internal services (SSRF). Such targets are refused unless
// WEBHOOK_ALLOW_PRIVATE_TARGETS is set, when the subscription is written and again at every
// connection (a name may resolve elsewhere by then), and redirects are never followed (src/webhooks/send.ts).
import dns from 'node:dns';
import type { LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';

/** Whether an address is on the public internet (ipaddr.js's `unicast` range, IPv4-mapped IPv6 read as IPv4). */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  const parsed = ipaddr.process(address);
  // IPv4-compatible IPv6 (::a.b.c.d, deprecated) is `unicast` to ipaddr.js but may reach a.b.c.d.
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).parts.slice(0, 6).every((part) => part === 0)) return false;
  return parsed.range() === 'unicast';
}

/** Why a target URL is refused, or undefined when it may be used. */
export async function refusedTarget(url: string, allowPrivate: boolean): Promise<string | undefined> {
  const target = new URL(url);
  if (target.protocol !== 'http:' && target.protocol !== 'https:') return 'url must be an http or https URL.';
  if (target.username || target.password) return 'url must not carry a user name or password.';
  if (allowPrivate) return undefined;
  const host = target.hostname.replace(/^\[(.*)\]$/, '$1');
  let addresses: string[];
  try {
    addresses = ipaddr.isValid(host) ? [host] : (await dns.promises.lookup(host, { all: true })).map((a) => a.address);
  } catch {
    return `url's host ${host} does not resolve.`;
  }
  return addresses.every(isPublicAddress)
    ? undefined
    : `url's host ${host} is a private, loopback or link-local address, which webhooks may not call.`;
}

/**
 * A `lookup` for http.request that refuses private addresses when the connection is made (names
 * only: a literal address is checked by refusedTarget before the request, as Node does not look it up).
 */
export function guardedLookup(allowPrivate: boolean): LookupFunction {
  return (hostname, options, callback) => {
    dns.lookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) {
        callback(err, '', 0);
        return;
      }
      const usable = allowPrivate ? addresses : addresses.filter((a) => isPublicAddress(a.address));
      if (!usable.length) {
        callback(Object.assign(new Error(`${hostname} resolves to no public address`), { code: 'EPRIVATE' }), '', 0);
        return;
      }
      if (options.all) callback(null, usable);
      else callback(null, usable[0].address, usable[0].family);
    });
  };
}
