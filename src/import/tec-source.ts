// Reads a site of the modelled service (The Events Calendar, `tribe/events/v1`) through its own
// paged lists, and turns each item into a body of our API. Its response shapes are those of
// test/fixtures/tec-site/ (real answers of that service).
//
// Its lists leave out what the reader may not see (drafts, without --user) and, always, events
// hidden from listings; such items are still readable one by one. So the IDs that WordPress's own
// route lists (`wp/v2/tribe_events`, when the site offers it) and the IDs imported by an earlier
// run that the lists no longer show are read one by one: found, they are imported; gone, they are
// reported as deleted there (or trashed there, as WordPress's record says: wordpress-posts.ts).
//
// Its answers are written for HTML: names, titles, addresses and URLs come with entities (`Rock
// &#038; Roll`, `?a=1&amp;b=2`). They are decoded once, here, as they are read; descriptions and
// excerpts are HTML and stay so. Events take what WordPress stores where the plugin shows only a
// formatted value (the cost, the website, a draft's date): wordpress-posts.ts.
import { decodeHTML } from 'entities';
import { costEntries, parseCost } from '../lib/cost.js';
import { trimEndChar } from '../lib/text.js';
import { fetchJson, SourceError } from './fetch-source.js';
import {
  firstLinks,
  type ImportItem,
  type ItemKind,
  type ItemRef,
  type RefField,
  type Unreadable,
} from '../domain/external-items.js';
import type { ImportLimits } from './limits.js';
import { statusFields } from './tec-status.js';
import { type ListReading, type PageOf, paged, type Raw, type TecSite, text } from './site-lists.js';
import { readStoredEvent, type StoredEvent, storedEvents } from './wordpress-posts.js';

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
    // One request for WordPress's records of the page's events.
    const stored =
      kind === 'event'
        ? await storedEvents(
            site,
            values.map((v) => text((v as Raw | null)?.id)),
          )
        : undefined;
    const items: ImportItem[] = [];
    const unreadable: Unreadable[] = [];
    for (const raw of values) {
      const read = readItem(kind, raw, limits, stored?.get(text((raw as Raw | null)?.id)));
      if ('reason' in read) unreadable.push(read);
      else items.push(read);
    }
    yield { items, unreadable };
  }
}

export type OneItem = { found: ImportItem } | { gone: 'deleted' | 'trashed' } | { hidden: string } | Unreadable;

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
    const stored = kind === 'event' ? (await storedEvents(site, [externalId])).get(externalId) : undefined;
    const read = readItem(kind, body, limits, stored);
    return 'reason' in read ? read : { found: read };
  } catch (err) {
    if (!(err instanceof SourceError)) throw err;
    return refused(site, kind, externalId, err);
  }
}

/** What the site's refusal to give one item says of it: gone there (deleted or trashed), or hidden from us. */
async function refused(site: TecSite, kind: ItemKind, externalId: string, err: SourceError): Promise<OneItem> {
  const { status } = err;
  // The modelled service answers an unknown venue or organizer ID with 400, an event with 404.
  if (status === 400 || status === 404) return { gone: 'deleted' };
  if (status !== 401 && status !== 403 && status !== 410) throw err;
  // It answers an event in the trash with a 403 (to its administrator too) or a 410: WordPress's
  // record says which it is.
  const record = kind === 'event' ? await readStoredEvent(site, externalId) : undefined;
  if (record === 'gone') return { gone: 'deleted' };
  if (record?.status === 'trash' || status === 410) return { gone: 'trashed' };
  return {
    hidden: `the site answered ${status}${site.signedIn ? ' to the signed-in user' : ': sign in with --user'}`,
  };
}

function endpoint(site: TecSite, relative: string): URL {
  const base = site.base.href.endsWith('/') ? site.base.href : `${site.base.href}/`;
  return new URL(relative, base);
}

function readItem(kind: ItemKind, value: unknown, limits: ImportLimits, stored?: StoredEvent): ImportItem | Unreadable {
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
      return event(raw, limits, stored);
  }
}

/** Text written for HTML there (names, titles, addresses, URLs), as it was meant: decoded once. */
const plain = (value: unknown) => decodeHTML(text(value));
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
  return value && typeof value === 'object' ? plain((value as Raw).url) : '';
}

/**
 * The item's website. The plugin shows an event's own page there when it has none (drafts' too,
 * `?post_type=tribe_events&p=28`): a website that is the item's `url` there is no website, or it
 * would point at a page that goes with the old site and hide this service's own.
 */
function website(raw: Raw, given: string): string {
  const page = plain(raw.url);
  const withoutSlash = (url: string) => trimEndChar(url, '/');
  return page && withoutSlash(given) === withoutSlash(page) ? '' : given;
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
      website: website(raw, plain(raw.website)),
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
      website: website(raw, plain(raw.website)),
      // The modelled service writes e-mail addresses with entities, differently on every read.
      email: plain(raw.email),
      image: image(raw.image),
    }),
    refs: [],
  };
}

/**
 * The cost as the source stored it, with its own currency: what WordPress stores (`_EventCost`,
 * `_EventCurrencySymbol`, `_EventCurrencyPosition`) when it gives it and it holds every amount the
 * plugin shows (other plugins, ticket sellers, add amounts of their own); else the amounts the plugin
 * parsed (`cost_details.values`). Never its shown `cost`, which adds the site's default symbol to
 * an amount that had none ("100" shows as "$100") and keeps only the lowest and highest of a list
 * ("5, 10, 15" shows as "$5 – $15").
 */
function cost(raw: Raw, stored: StoredEvent | undefined): string | string[] {
  const details = (raw.cost_details ?? {}) as Raw;
  const shown = Array.isArray(details.values) ? details.values.map(plain).filter(Boolean) : [];
  const currency = currencyOf(details, stored);
  const amounts = (cost: string | string[]) => parseCost(cost).cost_details.values.filter(isAmount);
  const withSymbol = (entry: string) => withCurrency(entry, currency);
  const storedCost = stored?.meta?.cost;
  if (storedCost !== undefined) {
    const entries = costEntries(storedCost);
    const held = new Set(amounts(entries));
    if (shown.filter(isAmount).every((amount) => held.has(normalAmount(amount)))) {
      return currency.symbol ? entries.map(withSymbol) : storedCost;
    }
  }
  // Labels ("Free") come lower-cased in `values`: as shown, they are as written.
  if (shown.length && !shown.every(isAmount)) return plain(raw.cost);
  return currency.symbol ? shown.map(withSymbol) : shown;
}

interface Currency {
  symbol: string;
  /** The symbol follows the amount. */
  postfix: boolean;
}

/** The cost's currency symbol and its side: as the plugin shows it, else as WordPress stores it. */
function currencyOf(details: Raw, stored: StoredEvent | undefined): Currency {
  const symbol = plain(details.currency_symbol) || stored?.meta?.currencySymbol || '';
  // The plugin shows `prefix` or `postfix`; it stores `prefix` or `suffix`.
  const position = text(details.currency_position) || stored?.meta?.currencyPosition;
  return { symbol, postfix: position === 'postfix' || position === 'suffix' };
}

/** A cost entry with the currency symbol on its side; one without an amount, or with the symbol, as it is. */
function withCurrency(entry: string, { symbol, postfix }: Currency): string {
  if (!symbol || !/\d/.test(entry) || entry.includes(symbol)) return entry;
  return postfix ? `${entry}${symbol}` : `${symbol}${entry}`;
}

const isAmount = (value: string) => /^\d+(?:\.\d+)?$/.test(value);
/** "12.50" as our cost reads it (lib/cost.ts keeps two decimals when there are any). */
const normalAmount = (value: string) => parseCost(value).cost_details.values[0] ?? value;

/** A value that may be one object or a list of them, as a list of the objects in it (a site may send `[null]`). */
function list(value: unknown): Raw[] {
  if (Array.isArray(value)) return value.filter((v): v is Raw => Boolean(v) && typeof v === 'object');
  return value && typeof value === 'object' ? [value as Raw] : [];
}

function event(raw: Raw, limits: ImportLimits, stored: StoredEvent | undefined): ImportItem {
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
  const fields = post(raw);
  // A draft or pending event has no publication date there (zeros): WordPress's record has its
  // date; without it, its local `date` (the site's zone there, taken in ours here).
  if (fields.date_utc === undefined) {
    if (stored?.dateUtc) fields.date_utc = stored.dateUtc;
    else if (time(raw.date)) fields.date = time(raw.date);
  }
  const status = statusFields(raw);
  remarks.push(...status.remarks);
  // This service has no event passwords: a protected event stays out of public sight, as private.
  if (stored?.password && (fields.status === 'publish' || fields.status === 'future')) {
    fields.status = 'private';
    remarks.push('password-protected there: private here, which has no event passwords');
  }
  return {
    kind: 'event',
    externalId: idOf(raw),
    label: title,
    modified: time(raw.modified_utc),
    body: defined({
      title,
      ...fields,
      start_date: text(raw.start_date) || undefined,
      end_date: text(raw.end_date) || undefined,
      timezone: text(raw.timezone),
      all_day: flag(raw.all_day),
      cost: cost(raw, stored),
      website: website(raw, stored?.meta ? stored.meta.website : plain(raw.website)),
      image: image(raw.image),
      show_map: flag(raw.show_map),
      show_map_link: flag(raw.show_map_link),
      hide_from_listings: flag(raw.hide_from_listings),
      sticky: flag(raw.sticky),
      featured: flag(raw.featured),
      ...status.fields,
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
