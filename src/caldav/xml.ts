// WebDAV's XML both ways. Requests are read by saxes, a strict streaming parser that resolves
// namespaces (clients write `D:`, `d:` or a default namespace for the same DAV: names) and never
// expands an entity it was not told of: a DOCTYPE, where entities would be declared, is refused
// outright, so no billion laughs and no external entity. The tree it builds is bounded in depth
// and size. Answers are written by xmlbuilder2, which escapes what it writes.
import { SaxesParser } from 'saxes';
import { create, fragment } from 'xmlbuilder2';
import type { XMLBuilder } from 'xmlbuilder2/lib/interfaces.js';

export const DAV = 'DAV:';
export const CALDAV = 'urn:ietf:params:xml:ns:caldav';
export const CALSERVER = 'http://calendarserver.org/ns/';
export const APPLE = 'http://apple.com/ns/ical/';

/** The prefixes answers use, declared once on their root. */
const PREFIXES: Record<string, string> = { [DAV]: 'd', [CALDAV]: 'c', [CALSERVER]: 'cs', [APPLE]: 'a' };

export interface XmlElement {
  ns: string;
  name: string;
  attributes: Partial<Record<string, string>>;
  children: XmlElement[];
  text: string;
}

/** An XML body that cannot be read: answered 400. */
export class BadXml extends Error {}

/** Bounds on a request's XML (a multiget of a thousand hrefs is well inside them). */
const MAX_DEPTH = 32;
const MAX_ELEMENTS = 20_000;

export function parseXml(text: string): XmlElement {
  const parser = new SaxesParser({ xmlns: true });
  const stack: XmlElement[] = [];
  let root: XmlElement | undefined;
  let elements = 0;
  let failure: string | undefined;
  parser.on('error', (err) => {
    failure ??= err.message;
  });
  parser.on('doctype', () => {
    failure ??= 'A DOCTYPE is not taken (no entities are declared in WebDAV requests).';
  });
  parser.on('opentag', (tag) => {
    if (failure) return;
    if (stack.length >= MAX_DEPTH) failure = `The XML nests deeper than ${MAX_DEPTH} elements.`;
    else if (++elements > MAX_ELEMENTS) failure = `The XML holds more than ${MAX_ELEMENTS} elements.`;
    if (failure) return;
    const attributes: Record<string, string> = {};
    for (const attribute of Object.values(tag.attributes)) {
      if (typeof attribute !== 'string' && !attribute.prefix && attribute.local !== 'xmlns')
        attributes[attribute.local] = attribute.value;
    }
    const element: XmlElement = { ns: tag.uri, name: tag.local, attributes, children: [], text: '' };
    stack.at(-1)?.children.push(element);
    root ??= element;
    stack.push(element);
  });
  parser.on('closetag', () => {
    if (!failure) stack.pop();
  });
  parser.on('text', (text) => {
    const current = stack.at(-1);
    if (current && !failure) current.text += text;
  });
  parser.on('cdata', (text) => {
    const current = stack.at(-1);
    if (current && !failure) current.text += text;
  });
  try {
    parser.write(text).close();
  } catch (err) {
    failure ??= err instanceof Error ? err.message : String(err);
  }
  if (failure) throw new BadXml(failure);
  if (!root) throw new BadXml('The body holds no XML element.');
  return root;
}

export const is = (element: XmlElement | undefined, ns: string, name: string) =>
  element?.ns === ns && element.name === name;

export const child = (element: XmlElement | undefined, ns: string, name: string) =>
  element?.children.find((c) => is(c, ns, name));

export const childrenNamed = (element: XmlElement | undefined, ns: string, name: string) =>
  element?.children.filter((c) => is(c, ns, name)) ?? [];

/** A property, as `{ns}name`, the key under which values are looked up. */
export const keyOf = (ns: string, name: string) => `{${ns}}${name}`;

// Every answer declares the prefixes of PREFIXES once, on its root, and its elements use them. A
// multistatus of ten thousand responses is written a response at a time (each a fragment, between
// the root's tags), so that writing it gives other requests their turns (caldav/routes.ts).

const DECLARATIONS = Object.entries(PREFIXES)
  .map(([ns, prefix]) => ` xmlns:${prefix}="${ns}"`)
  .join('');

/** The start and end of an answer whose root is `d:<name>`, with the prefixes declared. */
export const openRoot = (name: string) => `<?xml version="1.0" encoding="utf-8"?><d:${name}${DECLARATIONS}>`;
export const closeRoot = (name: string) => `</d:${name}>`;

/** A whole answer whose root is `d:<name>`. */
export function davDocument(root: string): XMLBuilder {
  const element = create({ version: '1.0', encoding: 'utf-8' }).ele(`d:${root}`);
  for (const [ns, prefix] of Object.entries(PREFIXES)) element.att(`xmlns:${prefix}`, ns);
  return element;
}

/** A part of an answer, written within a root that declares the prefixes. */
export const davFragment = (): XMLBuilder => fragment();

/**
 * Adds an element: by its prefix when its namespace has one, else with its namespace declared on
 * it (a property a client asked for in a namespace of its own).
 */
export function add(parent: XMLBuilder, ns: string, name: string, text?: string): XMLBuilder {
  const prefix = PREFIXES[ns];
  const element = prefix ? parent.ele(`${prefix}:${name}`) : parent.ele(ns, name);
  if (text !== undefined) element.txt(text);
  return element;
}

/**
 * The text of a document or fragment. A carriage return is written as a reference: an XML reader
 * turns a literal one into a line feed, and iCalendar's lines end in CRLF (RFC 5545 3.1).
 */
export const serialize = (element: XMLBuilder) => element.end({ prettyPrint: false }).replace(/\r/g, '&#13;');
