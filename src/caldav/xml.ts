// WebDAV's XML both ways. Requests are read by saxes, a strict streaming parser that resolves
// namespaces (clients write `D:`, `d:` or a default namespace for the same DAV: names) and never
// expands an entity it was not told of: a DOCTYPE, where entities would be declared, is refused
// outright, so no billion laughs and no external entity. The tree it builds is bounded in depth
// and size. Answers are written as text (XmlOut below), escaped as they are written.
import { SaxesParser } from 'saxes';

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

/**
 * An element of an answer as it is built: its name, attributes and children, written as text by
 * `serialize`. No DOM: an answer's elements are only ever added to, and a multistatus of fifty
 * texts spent an eighth of its time in xmlbuilder2's (docs/performance.md, "The CalDAV multiget").
 */
export class XmlOut {
  readonly #name: string;
  #attributes: string;
  readonly #children: (XmlOut | string)[] = [];
  /** A document's root is written after the XML declaration. */
  readonly #root: boolean;

  constructor(name: string, attributes = '', root = false) {
    this.#name = name;
    this.#attributes = attributes;
    this.#root = root;
  }

  /** A child element: by its qualified name (`d:href`), or in a namespace of its own (declared on it). */
  ele(nameOrNamespace: string, name?: string): XmlOut {
    const element =
      name === undefined ? new XmlOut(nameOrNamespace) : new XmlOut(name, ` xmlns="${escapedValue(nameOrNamespace)}"`);
    this.#children.push(element);
    return element;
  }

  txt(text: string): this {
    this.#children.push(escaped(text));
    return this;
  }

  att(name: string, value: string): this {
    this.#attributes += ` ${name}="${escapedValue(value)}"`;
    return this;
  }

  write(out: string[]): void {
    if (this.#root) out.push('<?xml version="1.0" encoding="utf-8"?>');
    if (this.#name) out.push(`<${this.#name}${this.#attributes}`, this.#children.length ? '>' : '/>');
    for (const child of this.#children) {
      if (typeof child === 'string') out.push(child);
      else child.write(out);
    }
    if (this.#name && this.#children.length) out.push(`</${this.#name}>`);
  }
}

/**
 * Text escaped (`&`, `<`, `>`) and attribute values too (and `"`), a carriage return as a
 * reference in both: an XML reader turns a literal one into a line feed, and iCalendar's lines end
 * in CRLF (RFC 5545 3.1).
 */
const escaped = (text: string) => text.replace(IN_TEXT, (c) => ENTITIES[c] ?? c);
const escapedValue = (value: string) => value.replace(IN_VALUE, (c) => ENTITIES[c] ?? c);
const IN_TEXT = /[&<>\r]/g;
const IN_VALUE = /[&<>"\r]/g;
const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', '\r': '&#13;' };

/** A whole answer whose root is `d:<name>`. */
export const davDocument = (root: string): XmlOut => new XmlOut(`d:${root}`, DECLARATIONS, true);

/** A part of an answer, written within a root that declares the prefixes. */
export const davFragment = (): XmlOut => new XmlOut('');

/**
 * Adds an element: by its prefix when its namespace has one, else with its namespace declared on
 * it (a property a client asked for in a namespace of its own).
 */
export function add(parent: XmlOut, ns: string, name: string, text?: string): XmlOut {
  const prefix = PREFIXES[ns];
  const element = prefix ? parent.ele(`${prefix}:${name}`) : parent.ele(ns, name);
  if (text !== undefined) element.txt(text);
  return element;
}

/** The text of a document or fragment. */
export function serialize(element: XmlOut): string {
  const out: string[] = [];
  element.write(out);
  return out.join('');
}
