// WordPress's own records of a site's events (`wp/v2/tribe_events`), beside the modelled service's
// answers (tec-source.ts). They hold what that service only shows formatted or not at all: the
// stored cost and currency (The Events Calendar registers its `_Event*` meta for the REST API, for
// its block editor), the website as stored (its `website` falls back on the event's own page), a
// draft's date (WordPress gives `date_gmt` where the plugin gives zeros), the post password (edit
// context only), and a post's `trash` status, which the plugin answers with a 403. Not every site
// offers the route, or lets the importing account use it: then the plugin's answers alone are read.
import { trimEndChar } from '../lib/text.js';
import { fetchJson, SourceError } from './fetch-source.js';
import type { ImportLimits } from './limits.js';
import { type ListReading, type PageOf, paged, type Raw, type TecSite, text } from './site-lists.js';

/** What WordPress stores of one event that the modelled service's answer does not carry as stored. */
export interface StoredEvent {
  status: string;
  /** `YYYY-MM-DD HH:MM:SS` in UTC. */
  dateUtc?: string;
  /** Set, the event is password-protected there (edit context only). */
  password?: string;
  /** The meta as stored; absent when the site does not show it. */
  meta?: {
    cost: string;
    currencySymbol: string;
    currencyPosition: string;
    website: string;
  };
}

const FIELDS = 'id,status,date_gmt,password,meta';
/** The statuses a signed-in reader asks for (WordPress lists only published ones otherwise). */
const STATUSES = 'publish,future,draft,pending,private';

/** `https://example.org/wp-json/` for `https://example.org/wp-json/tribe/events/v1`. */
function wordpressRoot(base: URL): URL | undefined {
  const path = trimEndChar(base.pathname, '/');
  if (!path.endsWith('/tribe/events/v1')) return undefined;
  return new URL(path.slice(0, -'tribe/events/v1'.length), base);
}

function postsUrl(site: TecSite, relative: string): URL | undefined {
  const root = wordpressRoot(site.base);
  return root && new URL(`wp/v2/tribe_events${relative}`, root);
}

/**
 * The stored values of these events, by ID; an empty map when the site does not give them, and
 * then `site.posts.unavailable` says why (asked once per run: a site without the route is not
 * asked again for every page).
 */
export async function storedEvents(site: TecSite, ids: string[]): Promise<Map<string, StoredEvent>> {
  const found = new Map<string, StoredEvent>();
  if (!ids.length || site.posts.unavailable) return found;
  const context = site.signedIn ? `&context=edit&status=${STATUSES}` : '';
  const url = postsUrl(
    site,
    `?include=${ids.map(encodeURIComponent).join(',')}&per_page=100&_fields=${FIELDS}${context}`,
  );
  if (!url) {
    site.posts.unavailable = 'the base URL does not end in /tribe/events/v1';
    return found;
  }
  try {
    const { body } = await fetchJson(url, site.fetch);
    if (!Array.isArray(body)) throw new SourceError(`${url.href} did not answer a list`);
    for (const post of body as Raw[]) found.set(text(post.id), storedEvent(post));
  } catch (err) {
    if (!(err instanceof SourceError)) throw err;
    site.posts.unavailable = err.message;
  }
  return found;
}

/** One event's record, trashed ones included (signed in); undefined when it cannot be read. */
export async function readStoredEvent(site: TecSite, id: string): Promise<StoredEvent | 'gone' | undefined> {
  if (!site.signedIn) return undefined;
  const url = postsUrl(site, `/${encodeURIComponent(id)}?context=edit&_fields=${FIELDS}`);
  if (!url) return undefined;
  try {
    return storedEvent((await fetchJson(url, site.fetch)).body as Raw);
  } catch (err) {
    if (!(err instanceof SourceError)) throw err;
    // WordPress answers 404 `rest_post_invalid_id` for a post deleted for good.
    return err.status === 404 || err.status === 410 ? 'gone' : undefined;
  }
}

function storedEvent(post: Raw): StoredEvent {
  const meta = post.meta && typeof post.meta === 'object' && !Array.isArray(post.meta) ? (post.meta as Raw) : undefined;
  const dateGmt = text(post.date_gmt);
  return {
    status: text(post.status),
    // `2026-11-22T04:04:50`; for a draft WordPress computes it from its local date.
    dateUtc: /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/.test(dateGmt) ? dateGmt.replace('T', ' ') : undefined,
    password: text(post.password) || undefined,
    meta:
      meta && '_EventCost' in meta
        ? {
            cost: text(meta._EventCost),
            currencySymbol: text(meta._EventCurrencySymbol),
            currencyPosition: text(meta._EventCurrencyPosition),
            website: text(meta._EventURL),
          }
        : undefined,
  };
}

/**
 * The IDs of every event as WordPress lists its posts (hidden ones included), page by page; where
 * they cannot be listed (not every site offers the route), `unavailable` says why.
 */
export async function* eventIdPages(
  site: TecSite,
  limits: ImportLimits,
  list: ListReading & { unavailable?: string },
): AsyncGenerator<string[]> {
  const statuses = site.signedIn ? `&status=${STATUSES}` : '';
  const root = wordpressRoot(site.base);
  if (!root) {
    list.unavailable = 'the base URL does not end in /tribe/events/v1';
    return;
  }
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
