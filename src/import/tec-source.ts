// Reads a site of the modelled service (The Events Calendar, `tribe/events/v1`) through its own
// paged lists, and turns each item into a body of our API. Its response shapes are those of
// test/fixtures/tec-site/ (real answers of that service).
//
// Its lists leave out what the reader may not see (drafts, without --user) and, always, events
// hidden from listings; such items are still readable one by one. So the IDs that WordPress's own
// route lists (`wp/v2/tribe_events`, when the site offers it) and the IDs imported by an earlier
// run that the lists no longer show are read one by one: found, they are imported; gone, they are
// reported as deleted there.
import { trimEndChar } from '../lib/text.js';
import { decodeHTML } from 'entities';
import { fetchJson, type FetchOptions, SourceError } from './fetch-source.js';
import { firstLinks, type ImportItem, type ItemKind, type ItemRef, type RefField, type Unreadable } from './items.js';
import type { ImportLimits } from './limits.js';

/** The largest page the modelled service gives. */
const PER_PAGE = 50;

/** Each kind's list route, the key of its list in the answer, and the query that lists all of it. */
const LISTS: Record<ItemKind, { route: string; key: string; query: string }> = {
  category: { route: 'categories', key: 'categories', query: 'hide_empty=false' },
  tag: { route: 'tags', key: 'tags', query: 'hide_empty=false' },
  venue: { route: 'venues', key: 'venues', query: '' },
  organizer: { route: 'organizers', key: 'organizers', query: '' },
  // Its default window starts today: ask for every date it can hold.
  event: { route: 'events', key: 'events', query: 'start_date=1900-01-01%2000:00:00&end_date=2999-12-31%2023:59:59' },
};

export interface TecSite {
  base: URL;
  fetch: FetchOptions;
}

/**
 * How the reading of a list went: what it announced, the IDs it gave, and why it ended early. A list
 * ends at its last page, at an empty page or a 404 past its end, at a page that holds only items it
 * gave before (a site that answers every page number with the same page), or at a bound (limits.ts):
 * whatever it claims, it costs at most `maxPages` requests and `maxItems` IDs in memory.
 */
export interface ListReading {
  /** What it says it holds (its first page's total), once read. */
  announced?: number;
  /** The IDs it gave, each once. */
  ids: Set<string>;
  /** Items taken from it (those without an ID too). */
  taken: number;
  /** Why it was not read to its end, when a bound or a repeated page ended it: it may hold more. */
  cutShort?: string;
}

export const newReading = (): ListReading => ({ ids: new Set(), taken: 0 });

/** One page's values and what the list says about itself; undefined past its end. */
type PageOf = (page: number) => Promise<{ values: unknown[]; pages: number; total?: number } | undefined>;

/** The values of a list, page after page, each ID once, within the bounds (see ListReading). */
async function* paged(
  name: string,
  fetchPage: PageOf,
  limits: ImportLimits,
  list: ListReading,
  onPage: (page: number, pages: number) => void,
): AsyncGenerator<unknown[]> {
  for (let page = 1, pages = 1; page <= pages; page++) {
    if (page > limits.maxPages) {
      list.cutShort = `the ${name} announces ${pages} pages: the first ${limits.maxPages} were read (--max-pages).`;
      return;
    }
    const answer = await fetchPage(page);
    if (!answer) return;
    pages = answer.pages;
    if (page === 1) list.announced = answer.total;
    const fresh: unknown[] = [];
    let repeated = 0;
    for (const value of answer.values) {
      const id = text((value as Raw | null)?.id) || undefined;
      // An item created there while we page moves the later ones down a page: seen twice.
      if (id !== undefined && list.ids.has(id)) {
        repeated++;
        continue;
      }
      if (list.taken >= limits.maxItems) {
        list.cutShort = `the ${name} holds more than ${limits.maxItems} items: the first ${limits.maxItems} were taken (--max-items).`;
        break;
      }
      if (id !== undefined) list.ids.add(id);
      list.taken++;
      fresh.push(value);
    }
    onPage(page, pages);
    if (fresh.length) yield fresh;
    if (list.cutShort || !answer.values.length) return;
    if (repeated === answer.values.length) {
      list.cutShort = `page ${page} of the ${name} holds only items of earlier pages: it was read no further.`;
      return;
    }
  }
}

/** The items of a kind's list, page by page: what each page adds, and what could not be read. */
export async function* readList(
  site: TecSite,
  kind: ItemKind,
  limits: ImportLimits,
  list: ListReading,
  onPage: (page: number, pages: number) => void,
): AsyncGenerator<{ items: ImportItem[]; unreadable: Unreadable[] }> {
  const { route, key, query } = LISTS[kind];
  const fetchPage: PageOf = async (page) => {
    const url = endpoint(site, `${route}?${query}${query ? '&' : ''}per_page=${PER_PAGE}&page=${page}`);
    let answer: { body: unknown; headers: Headers };
    try {
      answer = await fetchJson(url, site.fetch);
    } catch (err) {
      // An empty list is a 404 "page not found" there, for page 1 as for any past the end: a list
      // that shrank while it was read (an item deleted there) ends early.
      if (err instanceof SourceError && err.status === 404 && err.body.includes('page-not-found')) return undefined;
      throw err;
    }
    const body = answer.body as Raw;
    const values = body[key];
    if (!Array.isArray(values)) throw new SourceError(`${url.href}: no "${key}" list in the answer`);
    const header = (name: string) => answer.headers.get(name) ?? undefined;
    return {
      values,
      pages: Number(body.total_pages ?? header('x-tec-totalpages') ?? 1) || 1,
      total: Number(body.total ?? header('x-tec-total') ?? values.length) || 0,
    };
  };
  for await (const values of paged(`${kind} list`, fetchPage, limits, list, onPage)) {
    const items: ImportItem[] = [];
    const unreadable: Unreadable[] = [];
    for (const raw of values) {
      const read = readItem(kind, raw, limits);
      if ('reason' in read) unreadable.push(read);
      else items.push(read);
    }
    yield { items, unreadable };
  }
}

export type OneItem = { found: ImportItem } | { gone: true } | { hidden: string } | Unreadable;

/** One item by its ID there: found, gone (deleted or in the trash there), or not readable by us. */
export async function readOne(
  site: TecSite,
  kind: ItemKind,
  externalId: string,
  limits: ImportLimits,
): Promise<OneItem> {
  const url = endpoint(site, `${LISTS[kind].route}/${encodeURIComponent(externalId)}`);
  try {
    const { body } = await fetchJson(url, site.fetch);
    const read = readItem(kind, body, limits);
    return 'reason' in read ? read : { found: read };
  } catch (err) {
    if (!(err instanceof SourceError)) throw err;
    const { status } = err;
    if (status === 401 || status === 403) return { hidden: `the site answered ${status}: sign in with --user` };
    // The modelled service answers an unknown venue or organizer ID with 400, an event with 404,
    // one in the trash with 410.
    if (status === 400 || status === 404 || status === 410) return { gone: true };
    throw err;
  }
}

/**
 * The IDs of every event as WordPress lists its posts (hidden ones included), page by page; where
 * they cannot be listed (not every site offers the route), `unavailable` says why.
 */
export async function* eventIdPages(
  site: TecSite,
  signedIn: boolean,
  limits: ImportLimits,
  list: ListReading & { unavailable?: string },
): AsyncGenerator<string[]> {
  const root = wordpressRoot(site.base);
  if (!root) {
    list.unavailable = 'the base URL does not end in /tribe/events/v1';
    return;
  }
  const statuses = signedIn ? '&status=publish,future,draft,pending,private' : '';
  const fetchPage: PageOf = async (page) => {
    const url = new URL(`wp/v2/tribe_events?per_page=100&page=${page}&_fields=id${statuses}`, root);
    const { body, headers } = await fetchJson(url, site.fetch);
    if (!Array.isArray(body)) throw new SourceError(`${url.href} did not answer a list`);
    const count = (name: string) => Number(headers.get(name) ?? undefined);
    return { values: body, pages: count('x-wp-totalpages') || 1, total: count('x-wp-total') || body.length };
  };
  try {
    for await (const values of paged('list of WordPress posts', fetchPage, limits, list, () => undefined)) {
      yield values.map((post) => text((post as Raw | null)?.id)).filter(Boolean);
    }
  } catch (err) {
    if (!(err instanceof SourceError)) throw err;
    list.unavailable = err.message;
  }
}

/** `https://example.org/wp-json/` for `https://example.org/wp-json/tribe/events/v1`. */
function wordpressRoot(base: URL): URL | undefined {
  const path = trimEndChar(base.pathname, '/');
  if (!path.endsWith('/tribe/events/v1')) return undefined;
  return new URL(path.slice(0, -'tribe/events/v1'.length), base);
}

function endpoint(site: TecSite, relative: string): URL {
  const base = site.base.href.endsWith('/') ? site.base.href : `${site.base.href}/`;
  return new URL(relative, base);
}

type Raw = Record<string, unknown>;

function readItem(kind: ItemKind, value: unknown, limits: ImportLimits): ImportItem | Unreadable {
  const raw = (value && typeof value === 'object' ? value : {}) as Raw;
  const id = raw.id;
  if (typeof id !== 'number' && typeof id !== 'string') {
    return { kind, externalId: '?', reason: 'an item without an ID' };
  }
  switch (kind) {
    case 'category':
    case 'tag':
      return term(kind, raw);
    case 'venue':
      return venue(raw);
    case 'organizer':
      return organizer(raw);
    case 'event':
      return event(raw, limits);
  }
}

/** Titles and names come with HTML entities (`&#8217;`, `&#038;`); ours are plain text. */
const plain = (value: unknown) => decodeHTML(text(value));
const text = (value: unknown) => (typeof value === 'string' ? value : typeof value === 'number' ? String(value) : '');
const flag = (value: unknown) => value === true || value === 'true' || value === '1' || value === 1 || value === 'yes';

/** WordPress keeps slugs of other scripts percent-encoded (`caf%c3%a9`). */
function slug(value: unknown): string | undefined {
  const raw = text(value);
  if (!raw) return undefined;
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}

/** A UTC time there; WordPress gives a draft's as zeros (it has none until it is published). */
const time = (value: unknown) => {
  const given = text(value);
  return given && !given.startsWith('0000-00-00') ? given : undefined;
};

const idOf = (raw: Raw) => text(raw.id);
const ref = (kind: ItemKind, id: unknown): ItemRef => ({ kind, externalId: text(id) });

/** Their `image` is false or an object with the URL; ours takes the URL, '' for none. */
function image(value: unknown): string {
  return value && typeof value === 'object' ? text((value as Raw).url) : '';
}

/** Only what was given: the lists leave empty fields out, and an absent field keeps ours unchanged. */
function defined(fields: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined));
}

function post(raw: Raw) {
  return defined({
    slug: slug(raw.slug),
    status: text(raw.status) || undefined,
    date_utc: time(raw.date_utc),
    description: text(raw.description),
    excerpt: text(raw.excerpt),
  });
}

function term(kind: 'category' | 'tag', raw: Raw): ImportItem {
  const name = plain(raw.name);
  const parent = Number(raw.parent) || 0;
  const refs: RefField[] = kind === 'category' && parent ? [{ field: 'parent', items: [ref('category', parent)] }] : [];
  return {
    kind,
    externalId: idOf(raw),
    label: name,
    body: defined({
      name,
      slug: slug(raw.slug),
      description: text(raw.description),
      ...(kind === 'category' && !parent ? { parent: 0 } : {}),
    }),
    refs,
  };
}

/** The text fields of a venue; a missing one is empty there (the lists leave empty ones out). */
const VENUE_TEXT = ['address', 'city', 'country', 'province', 'state', 'stateprovince', 'zip', 'phone'] as const;

function venue(raw: Raw): ImportItem {
  const name = plain(raw.venue);
  const geo = (value: unknown) => (value === undefined || value === '' ? undefined : Number(value));
  return {
    kind: 'venue',
    externalId: idOf(raw),
    label: name,
    modified: time(raw.modified_utc),
    body: defined({
      venue: name,
      ...post(raw),
      ...Object.fromEntries(VENUE_TEXT.map((field) => [field, plain(raw[field])])),
      website: text(raw.website),
      show_map: flag(raw.show_map),
      show_map_link: flag(raw.show_map_link),
      image: image(raw.image),
      geo_lat: geo(raw.geo_lat),
      geo_lng: geo(raw.geo_lng),
    }),
    refs: [],
  };
}

function organizer(raw: Raw): ImportItem {
  const name = plain(raw.organizer);
  return {
    kind: 'organizer',
    externalId: idOf(raw),
    label: name,
    modified: time(raw.modified_utc),
    body: defined({
      organizer: name,
      ...post(raw),
      phone: plain(raw.phone),
      website: text(raw.website),
      // The modelled service writes e-mail addresses with entities, differently on every read.
      email: plain(raw.email),
      image: image(raw.image),
    }),
    refs: [],
  };
}

/**
 * Its shown cost loses the event's own currency symbol when there are several amounts ("15$ – 30$"
 * reads as no symbol of its own, src/lib/cost.ts): with a symbol, each amount is given with it.
 */
function cost(raw: Raw): string | string[] {
  const details = (raw.cost_details ?? {}) as Raw;
  const symbol = text(details.currency_symbol);
  const values = Array.isArray(details.values) ? details.values.map(text).filter(Boolean) : [];
  if (!symbol || !values.length) return text(raw.cost);
  return values.map((value) => (details.currency_position === 'postfix' ? `${value}${symbol}` : `${symbol}${value}`));
}

const list = (value: unknown): Raw[] =>
  Array.isArray(value) ? (value as Raw[]) : value && typeof value === 'object' ? [value as Raw] : [];

function event(raw: Raw, limits: ImportLimits): ImportItem {
  const title = plain(raw.title);
  const remarks: string[] = [];
  const linked = (value: unknown, what: string) =>
    firstLinks(
      list(value).filter((v) => v.id !== undefined),
      limits.maxLinks,
      what,
      remarks,
    );
  const venues = linked(raw.venue, 'venues');
  const organizers = linked(raw.organizer, 'organizers');
  const categories = linked(raw.categories, 'categories');
  const tags = linked(raw.tags, 'tags');
  return {
    kind: 'event',
    externalId: idOf(raw),
    label: title,
    modified: time(raw.modified_utc),
    body: defined({
      title,
      ...post(raw),
      start_date: text(raw.start_date) || undefined,
      end_date: text(raw.end_date) || undefined,
      timezone: zoneName(text(raw.timezone)),
      all_day: flag(raw.all_day),
      cost: cost(raw),
      website: text(raw.website),
      image: image(raw.image),
      show_map: flag(raw.show_map),
      show_map_link: flag(raw.show_map_link),
      hide_from_listings: flag(raw.hide_from_listings),
      sticky: flag(raw.sticky),
      featured: flag(raw.featured),
    }),
    refs: [
      { field: 'venue', items: venues.map((v) => ref('venue', v.id)) },
      { field: 'organizer', items: organizers.map((o) => ref('organizer', o.id)) },
      { field: 'categories', items: categories.map((t) => ref('category', t.id)) },
      { field: 'tags', items: tags.map((t) => ref('tag', t.id)) },
    ],
    remarks,
    // Its venue and organizers come whole with it: a draft one the lists did not show is created.
    embedded: [...venues.map(venue), ...organizers.map(organizer)],
  };
}

/**
 * WordPress names a site's manual offset in hours with decimals (`UTC+5.5`, `UTC-9.5`, `UTC+5.75`);
 * ours are hours and minutes (`UTC+5:30`).
 */
function zoneName(zone: string): string {
  const offset = /^UTC([+-])(\d{1,2})\.(\d{1,2})$/.exec(zone);
  if (!offset) return zone;
  const minutes = Math.round(Number(`0.${offset[3]}`) * 60);
  return `UTC${offset[1]}${offset[2]}${minutes ? `:${String(minutes).padStart(2, '0')}` : ''}`;
}

/** Categories ordered so that each comes after its parent (a parent missing there: as they came). */
export function parentsFirst(categories: ImportItem[]): ImportItem[] {
  const byId = new Map(categories.map((c) => [c.externalId, c]));
  // A parent the site no longer has: the category comes over at the top level.
  for (const category of categories) {
    const parent = category.refs.find((r) => r.field === 'parent')?.items[0];
    if (parent && !byId.has(parent.externalId)) {
      category.refs = [];
      category.body.parent = 0;
    }
  }
  const ordered: ImportItem[] = [];
  const placed = new Set<string>();
  const place = (item: ImportItem, path: Set<string>) => {
    if (placed.has(item.externalId) || path.has(item.externalId)) return;
    path.add(item.externalId);
    const parent = item.refs.find((r) => r.field === 'parent')?.items[0];
    const parentItem = parent && byId.get(parent.externalId);
    if (parentItem) place(parentItem, path);
    placed.add(item.externalId);
    ordered.push(item);
  };
  for (const item of categories) place(item, new Set());
  return ordered;
}
