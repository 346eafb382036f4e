// A 207 Multi-Status (RFC 4918 13) as PROPFIND and REPORT answer it: what the request asks of each
// target (named properties, all, or their names), and the responses, each property found in one
// propstat and each missing one 404 in another, written a response at a time (lib/slices.ts) so that
// ten thousand of them give other requests their turns.
import type { Response } from 'express';
import { eachInSlices } from '../lib/slices.js';
import { NOT_IN_ALLPROP, type PropertyValues } from './props.js';
import { add, child, closeRoot, DAV, davFragment, keyOf, openRoot, serialize, type XmlElement } from './xml.js';

export const XML = 'application/xml; charset=utf-8';

/** What a PROPFIND or REPORT asks of each target: named properties, all of them, or their names. */
export type Wanted = { names: XmlElement[] } | { all: true } | { propname: true };

export function wantedOf(body: XmlElement | undefined): Wanted {
  if (!body) return { all: true };
  const prop = child(body, DAV, 'prop');
  if (prop) return { names: prop.children };
  if (child(body, DAV, 'propname')) return { propname: true };
  return { all: true };
}

/** One response of a multistatus. */
export interface Entry {
  href: string;
  values?: PropertyValues;
  /** Answered as a status of its own (404: gone, or not there). */
  status?: number;
  /** The resource's text, which calendar-data may be expanded from (reports.ts). */
  text?: string;
}

/** A 207 of the entries, written a response at a time (lib/slices.ts). */
export async function multistatus(res: Response, entries: Entry[], wanted: Wanted, syncToken?: string): Promise<void> {
  const parts = [openRoot('multistatus')];
  await eachInSlices(entries, (entry) => {
    const piece = davFragment();
    const response = add(piece, DAV, 'response');
    add(response, DAV, 'href', entry.href);
    if (entry.status || !entry.values) add(response, DAV, 'status', statusLine(entry.status ?? 404));
    else writePropstats(response, entry.values, wanted);
    parts.push(serialize(piece));
  });
  if (syncToken) {
    const piece = davFragment();
    add(piece, DAV, 'sync-token', syncToken);
    parts.push(serialize(piece));
  }
  parts.push(closeRoot('multistatus'));
  res.status(207).type(XML).send(parts.join(''));
}

function writePropstats(response: ReturnType<typeof add>, values: PropertyValues, wanted: Wanted) {
  const found: [XmlElement | string, (e: ReturnType<typeof add>) => void][] = [];
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
function element(prop: ReturnType<typeof add>, name: XmlElement | string) {
  if (typeof name !== 'string') return add(prop, name.ns, name.name);
  const end = name.lastIndexOf('}');
  return add(prop, name.slice(1, end), name.slice(end + 1));
}

const REASONS: Record<number, string> = { 200: 'OK', 403: 'Forbidden', 404: 'Not Found', 424: 'Failed Dependency' };
export const statusLine = (status: number) => `HTTP/1.1 ${status} ${REASONS[status] ?? ''}`.trim();
