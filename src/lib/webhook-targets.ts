// Where deliveries may go. A subscription's URL is the administrator's, but the service makes the
// request from inside the network: a target on a private, loopback or link-local address would let
// a webhook probe or call internal services (SSRF). Such targets are refused unless
// WEBHOOK_ALLOW_PRIVATE_TARGETS is set, when the subscription is written and again at every
// connection (a name may resolve elsewhere by then: src/lib/guarded-fetch.ts), and redirects are
// never followed (src/webhooks/send.ts).
import dns from 'node:dns';
import ipaddr from 'ipaddr.js';
import { isPublicAddress } from './guarded-fetch.js';

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
