// A change of the feed as readers and webhook receivers get it: what happened, and the object as its
// own route answers it now, or a tombstone.
import type { Caller } from '../auth/roles.js';
import type { ChangedObject, ChangeRecord } from '../domain/records.js';
import { formatDateTime } from '../lib/dates.js';
import type { CurrencySettings } from '../lib/cost.js';
import { versionOf } from '../domain/posts.js';
import { ORGANIZER, VENUE } from '../domain/records.js';
import type { Urls } from '../http/urls.js';
import { serializeEvent } from './events.js';
import { serializeMedia } from './images.js';
import { serializeRsvp } from './rsvps.js';
import { serializeTerm } from './terms.js';
import { serializeVenueOrOrganizer } from './venues-and-organizers.js';

export interface ChangeSerializeOptions {
  urls: Urls;
  siteZone: string;
  caller: Caller;
  currency: CurrencySettings;
}

export function serializeChange(change: ChangeRecord, options: ChangeSerializeOptions) {
  return {
    cursor: change.cursor,
    type: change.type,
    id: change.id,
    action: change.action,
    // What changed of an object the reader may not read is no business of theirs either.
    changed: change.object === undefined ? [] : change.changed,
    modified_utc: formatDateTime(change.modifiedAt, 'UTC'),
    version: versionOf(change.modifiedAt),
    tombstone: change.object === undefined,
    object: change.object === undefined ? null : serializeObject(change.object, options),
  };
}

function serializeObject(object: ChangedObject, { urls, siteZone, caller, currency }: ChangeSerializeOptions) {
  const links = { caller };
  switch (object.type) {
    case 'event':
      return serializeEvent(object.row, { urls, siteZone, caller, single: true, currency, links: true });
    case 'venue':
    case 'organizer':
      return serializeVenueOrOrganizer(object.type === 'venue' ? VENUE : ORGANIZER, object.row, {
        urls,
        siteZone,
        single: true,
        links,
      });
    case 'media':
      return serializeMedia(object.row, urls, siteZone);
    case 'rsvp':
      return serializeRsvp(object.row);
    default:
      return serializeTerm(object.row, urls, links);
  }
}
