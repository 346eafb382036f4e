// The CalDAV surface (docs/caldav.md), an Express router beside the REST API: discovery
// (/.well-known/caldav, PROPFIND), reading (GET, REPORT calendar-query, calendar-multiget and
// sync-collection) and writing (PUT, DELETE). Callers are those of the API: HTTP Basic with a
// login and its password or an application password (auth/authenticate.ts), the same sign-in
// throttle and rate limits (http/rate-limits.ts); anonymous callers read what is public.
import { type Request, type Response, Router } from 'express';
import getRawBody from 'raw-body';
import type { Caller } from '../auth/roles.js';
import type { Config } from '../config.js';
import type { Database } from '../db/client.js';
import { Forbidden, InvalidCredentials } from '../domain/errors.js';
import { toApiError } from '../http/errors.js';
import { OPERATION_LOCAL } from '../metrics/http.js';
import type { RateLimits } from '../http/rate-limits.js';
import { requestUrls, type Urls } from '../http/urls.js';
import type { ServiceContext } from '../services/context.js';
import { DavError } from './errors.js';
import {
  DAV_PREFIX,
  HOME,
  collectionHref,
  pathOfHref,
  principalHref,
  resourceHref,
  targetOf,
  type DavTarget,
} from './paths.js';
import {
  collectionProps,
  homeProps,
  MAX_RESOURCE_BYTES,
  NOT_IN_ALLPROP,
  principalProps,
  type PropertyValues,
  resourceProps,
  rootProps,
  listedOnly,
  versionProps,
  type Seen,
} from './props.js';
import {
  expand,
  ExpansionBudget,
  type EventFilter,
  idsInRange,
  readFilter,
  type TimeRange,
  timeRange,
} from './query.js';
import {
  categoryCollections,
  type Collection,
  findCollection,
  hrefNames,
  idsOfNames,
  idOfName,
  resourceIds,
  resourceVersions,
  readTexts,
  type ResourceText,
  segmentOf,
  viewDigest,
} from './store.js';
import { changedSince, currentToken } from './sync.js';
import { eachInSlices } from '../lib/slices.js';
import { deleteResource, putResource } from './write.js';
import {
  add,
  BadXml,
  CALDAV,
  child,
  childrenNamed,
  DAV,
  davDocument,
  davFragment,
  openRoot,
  closeRoot,
  is,
  keyOf,
  parseXml,
  serialize,
  type XmlElement,
} from './xml.js';

export interface DavDeps {
  config: Config;
  db: Database;
  identify: (req: Request, res: Response) => Promise<Caller>;
  rateLimits: RateLimits;
  onServerError?: (err: unknown, req: Request) => void;
}

const METHODS = 'OPTIONS, GET, HEAD, PUT, DELETE, PROPFIND, PROPPATCH, REPORT';
/** The largest XML body taken (a multiget of thousands of hrefs is well under it). */
const MAX_XML_BYTES = 512 * 1024;
const XML = 'application/xml; charset=utf-8';
const REALM = 'Basic realm="Calendar Events", charset="UTF-8"';

/** What one request works with. */
interface Exchange {
  req: Request;
  res: Response;
  ctx: ServiceContext;
  urls: Urls;
  target: DavTarget;
  seen: () => Promise<Seen>;
}

export function davRoutes(deps: DavDeps): Router {
  const router = Router();
  // Clients look here first (RFC 6764 5); the answer says where the service's CalDAV root is.
  router.all('/.well-known/caldav', (_req, res) => {
    res.set('Location', `${DAV_PREFIX}/`).status(301).end();
  });
  router.use((req, res, next) => {
    let target: DavTarget | undefined;
    try {
      target = targetOf(req.path);
    } catch (err) {
      // A path under the prefix that names nothing it could (a broken escape): refused in DAV's shape.
      fail(deps, req, res, err);
      return;
    }
    if (!target) {
      next();
      return;
    }
    // Its requests are timed as one operation (metrics/http.ts), told apart by their method.
    res.locals[OPERATION_LOCAL] = 'caldav';
    answer(deps, req, res, target).catch((err: unknown) => {
      fail(deps, req, res, err);
    });
  });
  return router;
}

async function answer(deps: DavDeps, req: Request, res: Response, target: DavTarget): Promise<void> {
  res.set('DAV', '1, 3, calendar-access');
  res.set('Allow', METHODS);
  if (req.method === 'OPTIONS') {
    res.status(200).end();
    return;
  }
  const caller = await deps.identify(req, res);
  const reads = ['GET', 'HEAD', 'PROPFIND', 'REPORT'].includes(req.method);
  await deps.rateLimits.take(reads ? 'reads' : 'writes', { caller, address: req.ip }, res);
  // Finding one's principal is signing in: an anonymous client is asked for credentials there, and
  // only there and on writes, so that a client given a collection's URL reads it without any.
  if (!caller && (!reads || ['root', 'principals', 'principal'].includes(target.kind))) throw new Forbidden(false);
  const urls = requestUrls(req, deps.config, undefined);
  const ctx: ServiceContext = {
    db: deps.db.prisma,
    caller,
    siteZone: deps.config.siteTimezone,
    now: new Date(),
    recurrence: deps.config.recurrence,
    quotas: deps.config.quotas,
  };
  let seen: Promise<Seen> | undefined;
  const exchange: Exchange = {
    req,
    res,
    ctx,
    urls,
    target,
    seen: () =>
      (seen ??= currentToken(ctx.db, viewDigest(ctx, urls)).then((token) => ({ caller, token, title: TITLE }))),
  };
  switch (req.method) {
    case 'PROPFIND':
      return propfind(exchange, await xmlBody(req));
    case 'REPORT':
      return report(exchange, await xmlBody(req));
    case 'GET':
    case 'HEAD':
      return get(exchange);
    case 'PUT':
      return put(exchange);
    case 'DELETE':
      return remove(exchange);
    case 'PROPPATCH':
      proppatch(exchange, await xmlBody(req));
      return;
    default:
      throw new DavError(405, `${req.method} is not answered here.`);
  }
}

/** The whole calendar's name. */
const TITLE = 'Events';

// ---- Reading the body ---------------------------------------------------------------------------

async function rawBody(req: Request, limit: number): Promise<string> {
  try {
    return await getRawBody(req, { limit, encoding: 'utf-8' });
  } catch (err) {
    const type = (err as { type?: string }).type;
    if (type === 'entity.too.large') throw new DavError(413, `The body is larger than ${limit} bytes.`);
    throw new DavError(400, 'The body could not be read.');
  }
}

async function xmlBody(req: Request): Promise<XmlElement | undefined> {
  const text = await rawBody(req, MAX_XML_BYTES);
  if (!text.trim()) return undefined;
  try {
    return parseXml(text);
  } catch (err) {
    if (err instanceof BadXml) throw new DavError(400, `The XML body cannot be read: ${err.message}`);
    throw err;
  }
}

// ---- PROPFIND -----------------------------------------------------------------------------------

/** What a PROPFIND or REPORT asks of each target: named properties, all of them, or their names. */
type Wanted = { names: XmlElement[] } | { all: true } | { propname: true };

function wantedOf(body: XmlElement | undefined): Wanted {
  if (!body) return { all: true };
  const prop = child(body, DAV, 'prop');
  if (prop) return { names: prop.children };
  if (child(body, DAV, 'propname')) return { propname: true };
  return { all: true };
}

interface Entry {
  href: string;
  values?: PropertyValues;
  /** Answered as a status of its own (404: gone, or not there). */
  status?: number;
}

async function propfind(x: Exchange, body: XmlElement | undefined): Promise<void> {
  if (body && !is(body, DAV, 'propfind')) throw new DavError(400, 'A PROPFIND body is a DAV:propfind.');
  const depth = String(x.req.headers.depth ?? '0')
    .trim()
    .toLowerCase();
  if (depth !== '0' && depth !== '1')
    throw new DavError(403, 'Depth is 0 or 1 here.', { ns: DAV, name: 'propfind-finite-depth' });
  const wanted = wantedOf(body);
  const entries = await entriesOf(x, depth === '1', wanted);
  await multistatus(x.res, entries, wanted);
}

async function entriesOf(x: Exchange, deep: boolean, wanted: Wanted): Promise<Entry[]> {
  const seen = await x.seen();
  const { target, ctx } = x;
  switch (target.kind) {
    case 'root':
      return [
        { href: `${DAV_PREFIX}/`, values: rootProps(seen) },
        ...(deep ? [{ href: HOME, values: homeProps(seen) }] : []),
      ];
    case 'principals':
      return [{ href: `${DAV_PREFIX}/principals/`, values: rootProps(seen) }];
    case 'principal': {
      const user = await ctx.db.user.findUnique({ where: { login: target.login } });
      // Principals other than one's own are not shown.
      if (!user || user.id !== ctx.caller?.id) throw new DavError(404, 'No such principal.');
      return [{ href: principalHref(user.login), values: principalProps(seen, user) }];
    }
    case 'home': {
      const home: Entry = { href: HOME, values: homeProps(seen) };
      if (!deep) return [home];
      const collections: Collection[] = [{ kind: 'all' }, ...(await categoryCollections(ctx.db))];
      return [
        home,
        ...collections.map((c) => ({ href: collectionHref(segmentOf(c)), values: collectionProps(seen, c) })),
      ];
    }
    case 'collection': {
      const collection = await collectionOf(x, target.segment);
      const self: Entry = { href: collectionHref(target.segment), values: collectionProps(seen, collection) };
      if (!deep) return [self];
      return [self, ...(await members(x, collection, target.segment, undefined, wanted)).entries];
    }
    case 'resource': {
      const collection = await collectionOf(x, target.segment);
      const text = await resourceText(x, collection, target.name);
      return [resourceEntry(seen, target.segment, text)];
    }
  }
}

const resourceEntry = (seen: Seen, segment: string, text: ResourceText): Entry => ({
  href: resourceHref(segment, text.name),
  values: resourceProps(seen, text),
});

async function collectionOf(x: Exchange, segment: string): Promise<Collection> {
  const collection = await findCollection(x.ctx.db, segment);
  if (!collection) throw new DavError(404, 'No such calendar.');
  return collection;
}

async function resourceText(x: Exchange, collection: Collection, name: string): Promise<ResourceText> {
  const id = await idOfName(x.ctx.db, name);
  const text = id === undefined ? undefined : (await readTexts(x.ctx, x.urls, collection, [id])).at(0);
  if (!text) throw new DavError(404, 'No such resource.');
  return text;
}

/** The resources' texts (their ETags need them), a slice at a time. */
async function textsOf(x: Exchange, collection: Collection, ids: number[]): Promise<ResourceText[]> {
  const texts: ResourceText[] = [];
  for (let from = 0; from < ids.length; from += SLICE) {
    texts.push(...(await readTexts(x.ctx, x.urls, collection, ids.slice(from, from + SLICE))));
  }
  return texts;
}

const SLICE = 500;

// ---- REPORT -------------------------------------------------------------------------------------

async function report(x: Exchange, body: XmlElement | undefined): Promise<void> {
  if (!body) throw new DavError(400, 'A REPORT has a body that names the report.');
  const { target } = x;
  if (target.kind !== 'collection' && target.kind !== 'resource')
    throw new DavError(403, 'Reports are answered on calendars and their resources.', {
      ns: DAV,
      name: 'supported-report',
    });
  const collection = await collectionOf(x, target.segment);
  const wanted = wantedOf(body);
  const seen = await x.seen();
  const calendarData = calendarDataOf(wanted);
  if (is(body, CALDAV, 'calendar-multiget')) {
    const entries = await multiget(x, collection, target.segment, body);
    await multistatus(x.res, await withExpansion(entries, calendarData), wanted);
    return;
  }
  if (is(body, CALDAV, 'calendar-query')) {
    const filter = readFilter(child(body, CALDAV, 'filter'));
    const texts = await queried(x, collection, target, filter);
    const entries = texts.map((t) => keep(resourceEntry(seen, target.segment, t), t));
    await multistatus(x.res, await withExpansion(entries, calendarData), wanted);
    return;
  }
  if (is(body, DAV, 'sync-collection')) {
    if (target.kind !== 'collection')
      throw new DavError(403, 'sync-collection is asked of a calendar.', { ns: DAV, name: 'supported-report' });
    return syncCollection(x, collection, target.segment, body, wanted);
  }
  throw new DavError(403, `The report ${body.name} is not supported here.`, { ns: DAV, name: 'supported-report' });
}

/** calendar-data as asked: whole, or expanded into the occurrences in a range. */
function calendarDataOf(wanted: Wanted): { expand?: TimeRange } | undefined {
  if (!('names' in wanted)) return undefined;
  const data = wanted.names.find((n) => is(n, CALDAV, 'calendar-data'));
  if (!data) return undefined;
  const expansion = child(data, CALDAV, 'expand');
  return expansion ? { expand: timeRange(expansion) } : {};
}

async function withExpansion(entries: Entry[], data: { expand?: TimeRange } | undefined): Promise<Entry[]> {
  const range = data?.expand;
  if (!range) return entries;
  const budget = new ExpansionBudget();
  for (const entry of entries) {
    const value = entry.values?.get(keyOf(CALDAV, 'calendar-data'));
    const text = entry.values && textOfEntry(entry);
    if (value && text !== undefined) {
      const expanded = await expand(text, range, budget);
      entry.values?.set(keyOf(CALDAV, 'calendar-data'), (element) => {
        element.txt(expanded);
      });
    }
  }
  return entries;
}

/** The text a resource entry carries, kept beside its values for expansion. */
const entryTexts = new WeakMap<PropertyValues, string>();
const textOfEntry = (entry: Entry) => (entry.values ? entryTexts.get(entry.values) : undefined);

/** The hrefs, each answered once under the href as the client wrote it, which it matches them by. */
async function multiget(x: Exchange, collection: Collection, segment: string, body: XmlElement): Promise<Entry[]> {
  const seen = await x.seen();
  const hrefs = [...new Set(childrenNamed(body, DAV, 'href').map((h) => h.text.trim()))];
  const names = new Map<string, string>();
  for (const href of hrefs) {
    const target = targetOfHref(href);
    if (target?.kind === 'resource' && target.segment === segment) names.set(href, target.name);
  }
  const ids = await idsOfNames(x.ctx.db, [...new Set(names.values())]);
  const texts = await textsOf(x, collection, [...new Set(ids.values())]);
  const byId = new Map(texts.map((t) => [t.master.id, t]));
  return hrefs.map((href) => {
    const id = ids.get(names.get(href) ?? '');
    const text = id === undefined ? undefined : byId.get(id);
    return text ? keep({ ...resourceEntry(seen, segment, text), href }, text) : { href, status: 404 };
  });
}

/** What an href of a request body names; nothing for one that names nothing here. */
function targetOfHref(href: string): DavTarget | undefined {
  try {
    return targetOf(pathOfHref(href));
  } catch {
    return undefined;
  }
}

const keep = (entry: Entry, text: ResourceText): Entry => {
  if (entry.values) entryTexts.set(entry.values, text.text);
  return entry;
};

async function queried(
  x: Exchange,
  collection: Collection,
  target: DavTarget & { kind: 'collection' | 'resource' },
  filter: EventFilter,
): Promise<ResourceText[]> {
  if ('none' in filter) return [];
  let ids = filter.range ? await idsInRange(x.ctx.db, filter.range) : await resourceIds(x.ctx, collection);
  if (target.kind === 'resource') {
    const id = await idOfName(x.ctx.db, target.name);
    ids = ids.filter((i) => i === id);
  }
  return textsOf(x, collection, ids);
}

async function syncCollection(
  x: Exchange,
  collection: Collection,
  segment: string,
  body: XmlElement,
  wanted: Wanted,
): Promise<void> {
  const token = child(body, DAV, 'sync-token')?.text.trim() ?? '';
  const level = child(body, DAV, 'sync-level')?.text.trim();
  if (level && level !== '1')
    throw new DavError(403, 'sync-level is 1: calendars hold no collections.', { ns: DAV, name: 'supported-report' });
  const seen = await x.seen();
  let entries: Entry[];
  let next: string;
  if (!token) {
    next = seen.token;
    entries = (await members(x, collection, segment, undefined, wanted)).entries;
  } else {
    const changed = await changedSince(x.ctx.db, token, viewDigest(x.ctx, x.urls));
    next = changed.token;
    const found = await members(x, collection, segment, changed.ids, wanted);
    const gone = changed.ids.filter((id) => !found.ids.has(id));
    const names = await hrefNames(x.ctx.db, gone);
    entries = [
      ...found.entries,
      ...gone.map((id) => ({ href: resourceHref(segment, names.get(id) ?? `${id}.ics`), status: 404 })),
    ];
  }
  await multistatus(x.res, entries, wanted, next);
}

/**
 * The collection's resources (all, or those among `ids`) the caller may read, as the request
 * wants them: from their ETags alone when it asks for nothing more, else from their texts.
 */
async function members(
  x: Exchange,
  collection: Collection,
  segment: string,
  ids: number[] | undefined,
  wanted: Wanted,
): Promise<{ entries: Entry[]; ids: Set<number> }> {
  if ('names' in wanted && listedOnly(wanted.names)) {
    const versions = await resourceVersions(x.ctx, x.urls, collection, ids);
    return {
      entries: versions.map((v) => ({ href: resourceHref(segment, v.name), values: versionProps(v) })),
      ids: new Set(versions.map((v) => v.id)),
    };
  }
  const seen = await x.seen();
  const texts = await textsOf(x, collection, ids ?? (await resourceIds(x.ctx, collection)));
  return {
    entries: texts.map((t) => keep(resourceEntry(seen, segment, t), t)),
    ids: new Set(texts.map((t) => t.master.id)),
  };
}

// ---- Writing the multistatus --------------------------------------------------------------------

/** A 207 of the entries, written a response at a time (lib/slices.ts). */
async function multistatus(res: Response, entries: Entry[], wanted: Wanted, syncToken?: string): Promise<void> {
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
const statusLine = (status: number) => `HTTP/1.1 ${status} ${REASONS[status] ?? ''}`.trim();

// ---- PROPPATCH ----------------------------------------------------------------------------------

/**
 * Clients set a calendar's colour or name; the calendar is the site's, so each property is refused
 * (403 in its propstat, RFC 4918 9.2), and nothing is changed.
 */
function proppatch(x: Exchange, body: XmlElement | undefined): void {
  if (!body || !is(body, DAV, 'propertyupdate')) throw new DavError(400, 'A PROPPATCH body is a DAV:propertyupdate.');
  const names = [...childrenNamed(body, DAV, 'set'), ...childrenNamed(body, DAV, 'remove')].flatMap(
    (op) => child(op, DAV, 'prop')?.children ?? [],
  );
  const root = davDocument('multistatus');
  const response = add(root, DAV, 'response');
  add(response, DAV, 'href', x.req.originalUrl.split('?')[0]);
  const propstat = add(response, DAV, 'propstat');
  const prop = add(propstat, DAV, 'prop');
  for (const name of names) add(prop, name.ns, name.name);
  add(propstat, DAV, 'status', statusLine(403));
  x.res.status(207).type(XML).send(serialize(root));
}

// ---- GET, PUT, DELETE ---------------------------------------------------------------------------

async function get(x: Exchange): Promise<void> {
  const { target } = x;
  if (target.kind !== 'resource') {
    x.res
      .status(200)
      .type('text/plain; charset=utf-8')
      .send('This is a CalDAV address: add it to a calendar application (docs/caldav.md).\n');
    return;
  }
  const collection = await collectionOf(x, target.segment);
  const text = await resourceText(x, collection, target.name);
  x.res.set('ETag', text.etag);
  if (x.req.headers['if-none-match']?.split(',').some((t) => t.trim() === text.etag || t.trim() === '*')) {
    x.res.status(304).end();
    return;
  }
  x.res.status(200).type('text/calendar; charset=utf-8').send(text.text);
}

async function put(x: Exchange): Promise<void> {
  const { target } = x;
  if (target.kind !== 'resource') throw new DavError(405, 'Events are put into a calendar, as resources.');
  const type = (x.req.headers['content-type'] ?? 'text/calendar').split(';')[0].trim().toLowerCase();
  if (type !== 'text/calendar')
    throw new DavError(415, 'A resource is iCalendar (text/calendar).', {
      ns: CALDAV,
      name: 'supported-calendar-data',
    });
  const collection = await collectionOf(x, target.segment);
  if (target.name.length > 255 || /[\\/\p{Cc}]/u.test(target.name))
    throw new DavError(400, 'A resource name is 1 to 255 characters, without control characters or slashes.');
  const body = await rawBody(x.req, MAX_RESOURCE_BYTES);
  const { created } = await putResource(x.ctx, x.urls, collection, target.name, body, conditions(x.req));
  x.res.set('Location', resourceHref(target.segment, target.name));
  x.res.status(created ? 201 : 204).end();
}

async function remove(x: Exchange): Promise<void> {
  const { target } = x;
  if (target.kind !== 'resource') throw new DavError(403, "Calendars are the site's: they are not deleted here.");
  const collection = await collectionOf(x, target.segment);
  await deleteResource(x.ctx, x.urls, collection, target.name, conditions(x.req));
  x.res.status(204).end();
}

const conditions = (req: Request) => ({
  ifMatch: req.headers['if-match'],
  ifNoneMatch: req.headers['if-none-match'],
});

// ---- Errors -------------------------------------------------------------------------------------

function fail(deps: DavDeps, req: Request, res: Response, err: unknown): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const error = davErrorOf(err);
  if (error.status >= 500) deps.onServerError?.(err, req);
  for (const [name, value] of Object.entries(error.headers)) res.set(name, value);
  // The body may not have been read: what is left of it is not taken as another request.
  if (!req.complete) res.set('Connection', 'close');
  const root = davDocument('error');
  if (error.precondition) add(root, error.precondition.ns, error.precondition.name);
  add(root, 'http://calendar-events.invalid/ns/', 'message', error.message);
  res.status(error.status).type(XML).send(serialize(root));
}

function davErrorOf(err: unknown): DavError {
  if (err instanceof DavError) return err;
  if (err instanceof InvalidCredentials || (err instanceof Forbidden && !err.signedIn))
    return new DavError(401, err.message, undefined, { 'WWW-Authenticate': REALM });
  const api = toApiError(err);
  return new DavError(api.status, api.message, undefined, api.headers);
}
