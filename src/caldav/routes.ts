// The CalDAV surface (docs/caldav.md), an Express router beside the REST API: discovery
// (/.well-known/caldav, PROPFIND), reading (GET, REPORT calendar-query, calendar-multiget and
// sync-collection) and writing (PUT, DELETE). Callers are those of the API: HTTP Basic with a
// login and its password or an application password (auth/authenticate.ts), the same sign-in
// throttle and rate limits (http/rate-limits.ts); anonymous callers read what is public.
import type { Request, RequestHandler, Response } from 'express';
import getRawBody from 'raw-body';
import type { Caller } from '../auth/roles.js';
import type { Config } from '../config.js';
import type { CaldavWriteLimits } from '../config/limits.js';
import type { Database } from '../db/client.js';
import { noneMatch } from '../domain/entity-tags.js';
import { CursorExpired, Forbidden, InvalidCredentials } from '../domain/errors.js';
import { toApiError } from '../http/errors.js';
import { OPERATION_LOCAL } from '../metrics/http.js';
import { keyOf as countedAs, type RateLimits } from '../http/rate-limits.js';
import { requestUrls } from '../http/urls.js';
import { serviceContext } from '../services/context.js';
import { Answer, BigAnswers, ClientGone, OverBudget, tooMuch } from './answer.js';
import { DavError, davCondition } from './errors.js';
import { KeptTexts } from './kept-texts.js';
import { collectionOf, type Exchange, resourceEntry, resourceText } from './exchange.js';
import { type Entry, statusLine, type Wanted, wantedOf, XML } from './multistatus.js';
import {
  DAV_PREFIX,
  HOME,
  collectionHref,
  principalHref,
  resourceHref,
  segmentOf,
  targetOf,
  type DavTarget,
} from './paths.js';
import { collectionProps, homeProps, MAX_RESOURCE_BYTES, principalProps, rootProps, type Seen } from './props.js';
import { members, report, respond } from './reports.js';
import type { Collection } from '../domain/records.js';
import { categoryCollections, viewDigest } from '../services/calendar-objects/read.js';
import { currentToken } from '../services/calendar-objects/sync.js';
import { accountOf } from '../auth/accounts.js';
import { deleteResource, putResource } from './write.js';
import {
  add,
  BadXml,
  CALDAV,
  child,
  childrenNamed,
  DAV,
  davDocument,
  is,
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
const REALM = 'Basic realm="Calendar Events", charset="UTF-8"';

/**
 * The middleware: every request of the service passes it first, so anything but CalDAV's paths is
 * let through on one string comparison (an Express Router's matching cost the cheapest read of the
 * API a tenth of its rate).
 */
export function davRoutes(deps: DavDeps): RequestHandler {
  const big = new BigAnswers(deps.config.caldav.bigPerCaller);
  const kept =
    deps.config.caldavTextCacheMegabytes > 0 ? new KeptTexts(deps.config.caldavTextCacheMegabytes) : undefined;
  return (req, res, next) => {
    const path = req.path;
    // Clients look here first (RFC 6764 5); the answer says where the service's CalDAV root is.
    if (path === WELL_KNOWN || path === `${WELL_KNOWN}/`) {
      res.set('Location', `${DAV_PREFIX}/`).status(301).end();
      return;
    }
    if (!path.startsWith(DAV_PREFIX)) {
      next();
      return;
    }
    let target: DavTarget | undefined;
    try {
      target = targetOf(path);
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
    answer(deps, { big, kept }, req, res, target).catch((err: unknown) => {
      fail(deps, req, res, err);
    });
  };
}

const WELL_KNOWN = '/.well-known/caldav';

/** What the requests of one process share: big answers in flight, kept texts. */
interface Shared {
  big: BigAnswers;
  kept?: KeptTexts;
}

async function answer(
  deps: DavDeps,
  { big, kept }: Shared,
  req: Request,
  res: Response,
  target: DavTarget,
): Promise<void> {
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
  const ctx = serviceContext(deps.config, { db: deps.db.prisma, caller });
  let seen: Promise<Seen> | undefined;
  const exchange: Exchange = {
    req,
    res,
    ctx,
    urls,
    target,
    seen: () =>
      (seen ??= currentToken(ctx.db, viewDigest(ctx, urls.site)).then((token) => ({ caller, token, title: TITLE }))),
    limits: deps.config.caldav,
    // Big answers are counted per caller as rate limits count requests: an account, else an address (an IPv6 /64).
    answer: (status, type) => new Answer(res, { status, type }, deps.config.caldav, big, countedAs(caller?.id, req.ip)),
    kept,
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
      return put(exchange, deps.config.caldavWrites);
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

async function propfind(x: Exchange, body: XmlElement | undefined): Promise<void> {
  if (body && !is(body, DAV, 'propfind')) throw new DavError(400, 'A PROPFIND body is a DAV:propfind.');
  const depth = String(x.req.headers.depth ?? '0')
    .trim()
    .toLowerCase();
  if (depth !== '0' && depth !== '1')
    throw new DavError(403, 'Depth is 0 or 1 here.', { ns: DAV, name: 'propfind-finite-depth' });
  const wanted = wantedOf(body);
  const answer = x.answer(207, XML);
  await respond(x, answer, await entriesOf(x, depth === '1', wanted), wanted);
}

async function entriesOf(x: Exchange, deep: boolean, wanted: Wanted): Promise<Iterable<Entry> | AsyncIterable<Entry>> {
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
      const user = await accountOf(ctx.db, target.login);
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
      const resources = await members(x, collection, target.segment, undefined, wanted);
      return (async function* () {
        yield self;
        yield* resources;
      })();
    }
    case 'resource': {
      const collection = await collectionOf(x, target.segment);
      const text = await resourceText(x, collection, target.name);
      return [resourceEntry(seen, target.segment, text)];
    }
  }
}

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
  if (!noneMatch(x.req.headers['if-none-match'], text.etag)) {
    x.res.status(304).end();
    return;
  }
  const answer = x.answer(200, 'text/calendar; charset=utf-8');
  try {
    await answer.write(text.text);
  } catch (err) {
    if (err instanceof OverBudget)
      throw tooMuch(`The resource is larger than the ${answer.maxBytes / 1024} KB one answer may hold.`);
    throw err;
  }
  answer.end();
}

async function put(x: Exchange, limits: CaldavWriteLimits): Promise<void> {
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
  const { created } = await putResource(x.ctx, x.urls, collection, target.name, body, conditions(x.req), limits);
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
  // A client that left is no one's fault: what was being built for it is dropped.
  if (res.headersSent || err instanceof ClientGone) {
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
  // A sync token the feed no longer reaches, or never gave (services/calendar-objects/sync.ts).
  if (err instanceof CursorExpired)
    return new DavError(
      403,
      'The sync token is not one this calendar gave, or is too old: sync again from none.',
      davCondition('valid-sync-token'),
    );
  if (err instanceof InvalidCredentials || (err instanceof Forbidden && !err.signedIn))
    return new DavError(401, err.message, undefined, { 'WWW-Authenticate': REALM });
  const api = toApiError(err);
  return new DavError(api.status, api.message, undefined, api.headers);
}
