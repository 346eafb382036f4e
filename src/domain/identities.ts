// How the site names its objects to the outside: the GUID every object keeps across sites and
// exports, and the iCalendar UID of an event, which an import or a CalDAV client may have given it.
// Pure rules of identity, shared by the serializers (what is shown) and the writers (what a client
// may claim: services/calendar-objects/write.ts).

/** The ID an object keeps across sites and exports: the site's host and the object's ID. */
export const globalId = (site: string, id: number) => `${new URL(site).host}?id=${id}`;

/**
 * A UID of the site's own form, `<host>?id=...` (any case): the site gives those to the events it
 * creates (their GUIDs), so no other event may carry one, or the next event created would share it.
 */
export const isSiteUid = (site: string, uid: string) =>
  uid.toLowerCase().startsWith(`${new URL(site).host}?id=`.toLowerCase());

/**
 * An event's iCalendar UID: the UID stored as its exported one (services/items/ledger.ts exportUid), unless
 * that has the site's form (an import of the site's own export), else its GUID.
 */
export const eventUid = (site: string, id: number, stored: string | undefined) =>
  stored !== undefined && !isSiteUid(site, stored) ? stored : globalId(site, id);
