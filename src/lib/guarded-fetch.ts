// Every request the service and its tools make to another host goes through here: webhook
// deliveries, and the importer's pages, files and images. The URL is someone else's choice (an
// administrator's subscription, a site's answer naming an image), and the request leaves from inside
// the network, so each one keeps these rules (docs/decisions.md, "Outbound requests"):
// - credentials go only to the origin they were given for, on every hop of a redirect chain;
// - a private, loopback, link-local or otherwise non-public address is refused unless the operator
//   allows them, checked on the address the connection is made to: the host is resolved once per
//   hop and the connection pinned to the address checked (a name that resolves elsewhere a moment
//   later, DNS rebinding, cannot move it), and every redirect is checked again;
// - an answer is read as a stream and refused (or cut, for an excerpt) past its size limit, after
//   decompression, and the whole exchange, redirects and body included, has one time limit.
import dns from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import { pipeline, type Readable } from 'node:stream';
import tls from 'node:tls';
import zlib from 'node:zlib';
import ipaddr from 'ipaddr.js';

/** Whether an address is on the public internet (ipaddr.js's `unicast` range, IPv4-mapped IPv6 read as IPv4). */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  const parsed = ipaddr.process(address);
  // IPv4-compatible IPv6 (::a.b.c.d, deprecated) is `unicast` to ipaddr.js but may reach a.b.c.d.
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).parts.slice(0, 6).every((part) => part === 0)) return false;
  return parsed.range() === 'unicast';
}

export interface ResolvedAddress {
  address: string;
  family: number;
}

/**
 * How names are resolved and TCP connections made: the system's, or a test's own (a resolver, and
 * connections that never leave the machine whatever address they are asked for, so that a broken
 * guard cannot send anything elsewhere).
 */
export interface Network {
  resolve(host: string): Promise<ResolvedAddress[]>;
  connect(to: ResolvedAddress & { port: number }): net.Socket;
}

const SYSTEM: Network = {
  resolve: (host) => dns.promises.lookup(host, { all: true }),
  connect: ({ address, port }) => net.connect({ host: address, port }),
};

/**
 * What the rules refuse, which asking again would not change: a URL that is not http(s) or carries
 * credentials (`target`), a non-public address (`address`), an answer over the limit (`size`), a
 * redirect loop, chain or target that is refused (`redirect`).
 */
export class OutboundRefused extends Error {
  constructor(
    message: string,
    readonly reason: 'target' | 'address' | 'size' | 'redirect',
  ) {
    super(message);
  }
}

/** An Authorization header and the one origin (`https://example.org`) it may be sent to. */
export interface Credentials {
  origin: string;
  authorization: string;
}

export interface OutboundRequest {
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  credentials?: Credentials;
  /**
   * The operator's switch: private, loopback and link-local addresses may be called, of any origin
   * (`true`), or of one origin alone (an import's source on a closed network: what it names
   * elsewhere, an image on another private host, stays refused).
   */
  allowPrivate: boolean | { origin: string };
  /** The largest body read, decompressed. */
  maxBytes: number;
  /** Past maxBytes the answer is refused (the default), or its first maxBytes kept (an excerpt). */
  overflow?: 'refuse' | 'cut';
  /** For the whole exchange: every hop and the body. */
  timeoutMs: number;
  /** Redirects followed, of a GET; with 0, a redirect is the answer. */
  maxRedirects: number;
  /** The caller's stop: aborts the exchange with its reason. */
  signal?: AbortSignal;
  network?: Network;
}

export interface OutboundAnswer {
  status: number;
  headers: Headers;
  bytes: Uint8Array;
  /** The URL that answered, at the end of the redirects. */
  url: URL;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/** A URL as messages show it: never with a user name or password. */
export const shownUrl = (url: URL) => `${url.origin}${url.pathname}${url.search}`;

/** The URL when it may be requested at all: absolute http(s), without credentials in it. */
export function outboundUrl(value: string | URL): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new OutboundRefused('This is not a URL.', 'target');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new OutboundRefused(`Only http: and https: URLs are requested, not ${url.protocol}`, 'target');
  }
  if (url.username || url.password) {
    throw new OutboundRefused(`${shownUrl(url)}: a URL must not carry a user name or password.`, 'target');
  }
  return url;
}

/**
 * The answer at the end of the redirects, body and all. Throws OutboundRefused for what the rules
 * refuse; a network error, or `no answer within N ms` at the time limit; the signal's reason when
 * the caller stopped it.
 */
export async function guardedFetch(url: string | URL, request: OutboundRequest): Promise<OutboundAnswer> {
  const timeout = AbortSignal.timeout(request.timeoutMs);
  const signal = request.signal ? AbortSignal.any([request.signal, timeout]) : timeout;
  const chain = [outboundUrl(url)];
  try {
    for (;;) {
      const target = chain[chain.length - 1];
      const response = await exchange(target, request, signal);
      try {
        const next = redirectOf(response, chain, request);
        if (!next) {
          return {
            status: response.statusCode ?? 0,
            headers: headersOf(response),
            bytes: await bodyOf(response, request, target),
            url: target,
          };
        }
        chain.push(next);
      } finally {
        // Its connection is its own: whatever happened, it goes.
        response.destroy();
      }
    }
  } catch (err) {
    if (request.signal?.aborted) throw request.signal.reason;
    if (timeout.aborted) throw new Error(`no answer within ${request.timeoutMs} ms`, { cause: err });
    throw err;
  }
}

/** One request to one URL: its answer's head, the body still to read. */
async function exchange(target: URL, request: OutboundRequest, signal: AbortSignal): Promise<http.IncomingMessage> {
  const pinned = await checkedAddress(target, request, signal);
  const headers: Record<string, string> = { 'accept-encoding': 'gzip, deflate, br', ...request.headers };
  if (target.origin === request.credentials?.origin) headers.authorization = request.credentials.authorization;
  const host = hostOf(target);
  return new Promise((resolve, reject) => {
    // https.request for its protocol check; the connection (TLS included) is made below.
    const sent = (target.protocol === 'https:' ? https : http).request(target, {
      method: request.method ?? 'GET',
      headers,
      signal,
      // A connection of its own, made to the address checked: a kept-alive one may have been made
      // under other rules, and a second resolution could give another address. TLS over it checks
      // the certificate against the host name. (Node takes createConnection only without an agent.)
      createConnection: () => {
        const socket = (request.network ?? SYSTEM).connect({ ...pinned, port: portOf(target) });
        if (target.protocol !== 'https:') return socket;
        return tls.connect({ socket, host, ...(net.isIP(host) ? {} : { servername: host }) });
      },
    });
    sent.once('response', resolve);
    sent.once('error', reject);
    sent.end(request.body);
  });
}

/** The address to connect to: the URL's literal address, or its host's first, once every one is allowed. */
async function checkedAddress(target: URL, request: OutboundRequest, signal: AbortSignal): Promise<ResolvedAddress> {
  const host = hostOf(target);
  const family = net.isIP(host);
  const addresses = family ? [{ address: host, family }] : await resolved(host, request.network, signal);
  // As when a webhook is subscribed (webhook-targets.ts): one address not public refuses the name.
  const mayBePrivate =
    request.allowPrivate === true ||
    (typeof request.allowPrivate === 'object' && request.allowPrivate.origin === target.origin);
  if (!mayBePrivate && !addresses.every((a) => isPublicAddress(a.address))) {
    const shown = addresses.map((a) => a.address).join(', ');
    throw new OutboundRefused(
      `${shownUrl(target)}: ${host}${family ? '' : ` (${shown})`} is a private, loopback or link-local address, which is not called unless allowed`,
      'address',
    );
  }
  return addresses[0];
}

/** The host's addresses, within the time limit: a resolver that does not answer does not hold the request. */
async function resolved(host: string, network: Network | undefined, signal: AbortSignal): Promise<ResolvedAddress[]> {
  signal.throwIfAborted();
  // The signal is the request's own, gone with it; Promise.race handles a rejection that comes later.
  const stopped = new Promise<never>((_resolve, reject) => {
    signal.addEventListener(
      'abort',
      () => {
        reject(signal.reason as Error);
      },
      { once: true },
    );
  });
  const addresses = await Promise.race([(network ?? SYSTEM).resolve(host), stopped]);
  if (!addresses.length) throw new Error(`${host} has no address`);
  return addresses;
}

/** The URL's host name, or its address without IPv6's brackets. */
const hostOf = (url: URL) => url.hostname.replace(/^\[(.*)\]$/, '$1');

const portOf = (url: URL) => Number(url.port) || (url.protocol === 'https:' ? 443 : 80);

/** Where a redirect leads, when it is followed; throws when it may not be. */
function redirectOf(response: http.IncomingMessage, chain: URL[], request: OutboundRequest): URL | undefined {
  const location = response.headers.location;
  const method = request.method ?? 'GET';
  if (!REDIRECTS.has(response.statusCode ?? 0) || location === undefined || !request.maxRedirects || method !== 'GET') {
    return undefined;
  }
  const from = chain[chain.length - 1];
  let next: URL;
  try {
    next = new URL(location, from);
  } catch {
    throw new OutboundRefused(
      `${shownUrl(from)} redirected to ${JSON.stringify(location)}, which is not a URL`,
      'redirect',
    );
  }
  const path = [...chain, next].map(shownUrl).join(' -> ');
  if (next.protocol !== 'http:' && next.protocol !== 'https:') {
    throw new OutboundRefused(`${shownUrl(from)} redirected to a ${next.protocol} URL, which is not read`, 'redirect');
  }
  if (next.username || next.password) {
    throw new OutboundRefused(`${shownUrl(from)} redirected to a URL with a user name or password`, 'redirect');
  }
  if (chain.some((seen) => seen.href === next.href)) {
    throw new OutboundRefused(`redirect loop, which asking again will not end: ${path}`, 'redirect');
  }
  if (chain.length > request.maxRedirects) {
    throw new OutboundRefused(`more than ${request.maxRedirects} redirects: ${path}`, 'redirect');
  }
  return next;
}

/** The answer's headers, but those the Fetch API's Headers refuses (a value outside Latin-1). */
function headersOf(response: http.IncomingMessage): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(response.headers)) {
    for (const one of Array.isArray(value) ? value : [value ?? '']) {
      try {
        headers.append(name, one);
      } catch {
        // Not a header anything here reads: left out rather than failing the answer.
      }
    }
  }
  return headers;
}

/** The body, decompressed, chunk by chunk: refused or cut once over the limit, before it fills the memory. */
async function bodyOf(response: http.IncomingMessage, request: OutboundRequest, url: URL): Promise<Uint8Array> {
  const stream = decoded(response);
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      const room = request.maxBytes - size;
      if (chunk.length > room) {
        if (request.overflow !== 'cut') {
          throw new OutboundRefused(`${shownUrl(url)} answered more than ${request.maxBytes} bytes`, 'size');
        }
        chunks.push(chunk.subarray(0, room));
        break;
      }
      chunks.push(chunk);
      size += chunk.length;
    }
  } finally {
    if (stream !== response) stream.destroy();
  }
  return Buffer.concat(chunks);
}

const DECODERS: Record<string, (() => zlib.Gunzip | zlib.Inflate | zlib.BrotliDecompress) | undefined> = {
  gzip: zlib.createGunzip,
  'x-gzip': zlib.createGunzip,
  deflate: zlib.createInflate,
  br: zlib.createBrotliDecompress,
};

/** The body without the content coding it names (one of those asked for), so the limit counts what is kept. */
function decoded(response: http.IncomingMessage): Readable {
  const decoder = DECODERS[response.headers['content-encoding']?.trim().toLowerCase() ?? ''];
  // pipeline passes an error of the answer (an abort, the time limit) on to the decoder's reader.
  return decoder ? pipeline(response, decoder(), () => undefined) : response;
}
