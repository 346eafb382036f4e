// The WebDAV and CalDAV properties of each kind of target, as clients discover a calendar with them:
// the root and a principal say where the caller's principal and calendar home are, the home lists
// the collections, a collection says what it holds and where the feed is (getctag, sync-token), a
// resource gives its ETag. A property a target does not have is answered 404 in its propstat.
import { may } from '../auth/capabilities.js';
import type { Caller } from '../auth/roles.js';
import type { Collection } from '../domain/records.js';
import type { ResourceVersion } from '../services/calendar-objects/read.js';
import type { ServedText } from './texts.js';
import { HOME, principalHref, DAV_PREFIX } from './paths.js';
import { add, APPLE, CALDAV, CALSERVER, DAV, keyOf, type XmlOut } from './xml.js';

/** Writes a property's value into its element. */
export type Value = (element: XmlOut) => void;

export type PropertyValues = Map<string, Value>;

const text =
  (value: string): Value =>
  (element) => {
    element.txt(value);
  };
const href =
  (value: string): Value =>
  (element) => {
    add(element, DAV, 'href', value);
  };
const empty: Value = () => undefined;
const types =
  (...names: [string, string][]): Value =>
  (element) => {
    for (const [ns, name] of names) add(element, ns, name);
  };

export interface Seen {
  caller: Caller;
  /** The feed's position now, as a token (sync.ts). */
  token: string;
  /** The calendar's name, the whole calendar's display name. */
  title: string;
}

function common(seen: Pick<Seen, 'caller'>): PropertyValues {
  return new Map<string, Value>([
    [
      keyOf(DAV, 'current-user-principal'),
      seen.caller
        ? href(principalHref(seen.caller.login))
        : (element) => {
            add(element, DAV, 'unauthenticated');
          },
    ],
    [keyOf(DAV, 'principal-collection-set'), href(`${DAV_PREFIX}/principals/`)],
    [keyOf(DAV, 'current-user-privilege-set'), privileges(seen.caller)],
  ]);
}

/** Read for everyone; writing for those the API lets create events (contributors and up). */
function privileges(caller: Caller): Value {
  const granted = may(caller, 'create events')
    ? ['read', 'write', 'write-content', 'write-properties', 'bind', 'unbind']
    : ['read'];
  return (element) => {
    for (const name of granted) add(add(element, DAV, 'privilege'), DAV, name);
  };
}

export function rootProps(seen: Seen): PropertyValues {
  const values = common(seen);
  values.set(keyOf(DAV, 'resourcetype'), types([DAV, 'collection']));
  values.set(keyOf(DAV, 'displayname'), text(seen.title));
  if (seen.caller) values.set(keyOf(CALDAV, 'calendar-home-set'), href(HOME));
  return values;
}

export function principalProps(seen: Seen, principal: { login: string; displayName: string; email: string }) {
  const values = common(seen);
  values.set(keyOf(DAV, 'resourcetype'), types([DAV, 'collection'], [DAV, 'principal']));
  values.set(keyOf(DAV, 'displayname'), text(principal.displayName || principal.login));
  values.set(keyOf(DAV, 'principal-URL'), href(principalHref(principal.login)));
  values.set(keyOf(CALDAV, 'calendar-home-set'), href(HOME));
  values.set(keyOf(CALDAV, 'calendar-user-address-set'), href(`mailto:${principal.email}`));
  return values;
}

export function homeProps(seen: Seen): PropertyValues {
  const values = common(seen);
  values.set(keyOf(DAV, 'resourcetype'), types([DAV, 'collection']));
  values.set(keyOf(DAV, 'displayname'), text(seen.title));
  if (seen.caller) values.set(keyOf(DAV, 'owner'), href(principalHref(seen.caller.login)));
  return values;
}

const REPORTS: [string, string][] = [
  [CALDAV, 'calendar-query'],
  [CALDAV, 'calendar-multiget'],
  [DAV, 'sync-collection'],
];

export function collectionProps(seen: Seen, collection: Collection): PropertyValues {
  const values = common(seen);
  const name = collection.kind === 'all' ? seen.title : `${seen.title}: ${collection.name}`;
  values.set(keyOf(DAV, 'resourcetype'), types([DAV, 'collection'], [CALDAV, 'calendar']));
  values.set(keyOf(DAV, 'displayname'), text(name));
  values.set(
    keyOf(CALDAV, 'calendar-description'),
    text(collection.kind === 'all' ? 'Every event of the calendar.' : `The events of the category ${collection.name}.`),
  );
  values.set(keyOf(CALDAV, 'supported-calendar-component-set'), (element) => {
    add(element, CALDAV, 'comp').att('name', 'VEVENT');
  });
  values.set(keyOf(CALDAV, 'supported-calendar-data'), (element) => {
    add(element, CALDAV, 'calendar-data').att('content-type', 'text/calendar').att('version', '2.0');
  });
  values.set(keyOf(DAV, 'supported-report-set'), (element) => {
    for (const [ns, report] of REPORTS) add(add(add(element, DAV, 'supported-report'), DAV, 'report'), ns, report);
  });
  values.set(keyOf(DAV, 'sync-token'), text(seen.token));
  values.set(keyOf(CALSERVER, 'getctag'), text(seen.token));
  values.set(keyOf(CALDAV, 'max-resource-size'), text(String(MAX_RESOURCE_BYTES)));
  values.set(keyOf(APPLE, 'calendar-color'), text('#3A6EA5'));
  values.set(keyOf(DAV, 'getcontenttype'), text('text/calendar; charset=utf-8'));
  return values;
}

/** The largest calendar object resource a PUT takes (caldav/routes.ts reads no more). */
export const MAX_RESOURCE_BYTES = 1024 * 1024;

/** The properties a listing of ETags gives, which need no resource's text (services/calendar-objects/read.ts resourceVersions). */
const LISTED = [keyOf(DAV, 'resourcetype'), keyOf(DAV, 'getetag'), keyOf(DAV, 'getcontenttype')];

/** Whether a request asks nothing of its resources but what a listing of ETags gives. */
export const listedOnly = (names: { ns: string; name: string }[]) =>
  names.every((n) => LISTED.includes(keyOf(n.ns, n.name)));

export function versionProps(resource: ResourceVersion): PropertyValues {
  return new Map<string, Value>([
    [keyOf(DAV, 'resourcetype'), empty],
    [keyOf(DAV, 'getetag'), text(resource.etag)],
    [keyOf(DAV, 'getcontenttype'), text(RESOURCE_TYPE)],
  ]);
}

const RESOURCE_TYPE = 'text/calendar; charset=utf-8; component=VEVENT';

export function resourceProps(who: Pick<Seen, 'caller'>, resource: ServedText): PropertyValues {
  const values = common(who);
  values.set(keyOf(DAV, 'resourcetype'), empty);
  values.set(keyOf(DAV, 'getetag'), text(resource.etag));
  values.set(keyOf(DAV, 'getcontenttype'), text(RESOURCE_TYPE));
  values.set(keyOf(DAV, 'getcontentlength'), text(String(Buffer.byteLength(resource.text))));
  values.set(keyOf(DAV, 'getlastmodified'), text(resource.modifiedAt.toUTCString()));
  values.set(keyOf(DAV, 'displayname'), text(resource.title));
  values.set(keyOf(CALDAV, 'calendar-data'), text(resource.text));
  return values;
}

/** Properties `allprop` gives (RFC 4918 9.1): all but the ones that cost a resource's whole text twice. */
export const NOT_IN_ALLPROP = new Set([keyOf(CALDAV, 'calendar-data'), keyOf(DAV, 'current-user-privilege-set')]);
