// A 207 Multi-Status (RFC 4918 13) as PROPFIND and REPORT answer it: what the request asks of each
// target (named properties, all, or their names), and the responses, each property found in one
// propstat and each missing one 404 in another. Each response is written to the answer
// (caldav/answer.ts) as it is built, with back-pressure, taking turns with other requests
// (lib/slices.ts); an answer that would pass its bounds is refused whole before it is sent, or
// ends where it got to with a 507 response for the request's own href (RFC 6578 3.6).
import { turns } from '../lib/slices.js';
import { type Answer, OverBudget, tooMuch } from './answer.js';
import { NOT_IN_ALLPROP, type PropertyValues } from './props.js';
import {
  add,
  child,
  closeRoot,
  DAV,
  davFragment,
  keyOf,
  openRoot,
  serialize,
  type XmlElement,
  type XmlOut,
} from './xml.js';

export const XML = 'application/xml; charset=utf-8';

/** What a PROPFIND or REPORT asks of each target: named properties, all of them, or their names. */
export type Wanted = { names: XmlElement[] } | { all: true } | { propname: true };

/**
 * Distinct properties one request may name: each is written into every response, so a request of
 * a few KB must not make every response that many times longer (docs/caldav.md, "Limits").
 */
export const MAX_PROPERTIES = 100;

export function wantedOf(body: XmlElement | undefined): Wanted {
  if (!body) return { all: true };
  const prop = child(body, DAV, 'prop');
  if (prop) return { names: distinct(prop.children) };
  if (child(body, DAV, 'propname')) return { propname: true };
  return { all: true };
}

/** The names, each once (the first as written): a property asked twice is answered once. */
function distinct(names: XmlElement[]): XmlElement[] {
  const byKey = new Map<string, XmlElement>();
  for (const name of names) {
    const key = keyOf(name.ns, name.name);
    if (byKey.has(key)) continue;
    if (byKey.size === MAX_PROPERTIES)
      throw tooMuch(`A request names at most ${MAX_PROPERTIES} distinct properties: ask for fewer.`);
    byKey.set(key, name);
  }
  return [...byKey.values()];
}

/** One response of a multistatus. */
export interface Entry {
  href: string;
  /** The resource's event, for a resource. */
  id?: number;
  values?: PropertyValues;
  /** Answered as a status of its own (404: gone, or not there). */
  status?: number;
  /** The resource's text, which calendar-data may be expanded from (reports.ts). */
  text?: string;
}

/** What a multistatus is written with besides its entries. */
export interface MultistatusOptions {
  /** The request's own href, which a 507 for an answer cut short names. */
  href: string;
  maxResponses: number;
  /** sync-collection's token: `whole` after every change, `partial` (the one asked from) for an answer cut short. */
  sync?: { whole: string; partial?: string };
}

/** Room kept for the end of an answer: a 507 response, a sync token and the root's end tag. */
const TAIL_BYTES = 1024;

/** A 207 of the entries, each response written to the answer as it is built. */
export async function multistatus(
  answer: Answer,
  entries: Iterable<Entry> | AsyncIterable<Entry>,
  wanted: Wanted,
  options: MultistatusOptions,
): Promise<void> {
  const turn = turns();
  let cut = false;
  try {
    await answer.write(openRoot('multistatus'), TAIL_BYTES);
    let count = 0;
    for await (const entry of entries) {
      if (++count > options.maxResponses) throw new OverBudget();
      const response = responseWithin(answer, entry, wanted);
      // A resource's text counts whether or not the response shows it (allprop gives its length).
      await answer.write(response, TAIL_BYTES, Math.max(Buffer.byteLength(response), entry.text?.length ?? 0));
      await turn();
    }
  } catch (err) {
    if (!(err instanceof OverBudget)) throw err;
    if (!answer.streaming)
      throw tooMuch(
        `The answer would hold more than ${options.maxResponses} responses or ${answer.maxBytes / 1024} KB: ask for fewer resources, or less of each.`,
      );
    cut = true;
  }
  const tail = davFragment();
  if (cut) {
    const response = add(tail, DAV, 'response');
    add(response, DAV, 'href', options.href);
    add(response, DAV, 'status', statusLine(507));
    add(add(response, DAV, 'error'), DAV, 'number-of-matches-within-limits');
  }
  const token = cut ? options.sync?.partial : options.sync?.whole;
  if (token) add(tail, DAV, 'sync-token', token);
  await answer.write(`${cut || token ? serialize(tail) : ''}${closeRoot('multistatus')}`);
  answer.end();
}

/** The entry's response, charged before it is built: none is made that the answer could not take. */
function responseWithin(answer: Answer, entry: Entry, wanted: Wanted): string {
  if ((entry.text?.length ?? 0) > answer.room(TAIL_BYTES)) throw new OverBudget();
  return responseOf(entry, wanted);
}

function responseOf(entry: Entry, wanted: Wanted): string {
  const piece = davFragment();
  const response = add(piece, DAV, 'response');
  add(response, DAV, 'href', entry.href);
  if (entry.status || !entry.values) add(response, DAV, 'status', statusLine(entry.status ?? 404));
  else writePropstats(response, entry.values, wanted);
  return serialize(piece);
}

function writePropstats(response: XmlOut, values: PropertyValues, wanted: Wanted) {
  const found: [XmlElement | string, (e: XmlOut) => void][] = [];
  const missing: XmlElement[] = [];
  if ('names' in wanted) {
    for (const name of wanted.names) {
      const value = values.get(keyOf(name.ns, name.name));
      if (value) found.push([name, value]);
      else missing.push(name);
    }
  } else {
    for (const [key, value] of values) {
      if ('all' in wanted && NOT_IN_ALLPROP.has(key)) continue;
      found.push([key, 'propname' in wanted ? () => undefined : value]);
    }
  }
  if (found.length) {
    const propstat = add(response, DAV, 'propstat');
    const prop = add(propstat, DAV, 'prop');
    for (const [name, value] of found) value(element(prop, name));
    add(propstat, DAV, 'status', statusLine(200));
  }
  if (missing.length) {
    const propstat = add(response, DAV, 'propstat');
    const prop = add(propstat, DAV, 'prop');
    for (const name of missing) element(prop, name);
    add(propstat, DAV, 'status', statusLine(404));
  }
}

/** A property's element, by the name a request gave or by its `{ns}name` key. */
function element(prop: XmlOut, name: XmlElement | string) {
  if (typeof name !== 'string') return add(prop, name.ns, name.name);
  const end = name.lastIndexOf('}');
  return add(prop, name.slice(1, end), name.slice(end + 1));
}

const REASONS: Record<number, string> = {
  200: 'OK',
  403: 'Forbidden',
  404: 'Not Found',
  424: 'Failed Dependency',
  507: 'Insufficient Storage',
};
export const statusLine = (status: number) => `HTTP/1.1 ${status} ${REASONS[status] ?? ''}`.trim();
