// The change feed (services/changes.ts): each change with the object serialized as its own route
// answers it, or a tombstone.
import { ORGANIZER, VENUE } from '../domain/records.js';
import { versionOf } from '../http/conditional.js';
import type { Call, Reply } from '../http/handler.js';
import { formatDateTime } from '../lib/dates.js';
import { serializeEvent } from '../serializers/events.js';
import { serializeTerm } from '../serializers/terms.js';
import { serializeVenueOrOrganizer } from '../serializers/venues-and-organizers.js';
import { type ChangedObject, readChanges } from '../services/changes.js';

export async function listChanges(call: Call<'listChanges'>): Promise<Reply> {
  const { items, next, more } = await readChanges(call.context, call.query.since, call.query.per_page);
  const changes = items.map(({ change, cursor, object }) => ({
    cursor,
    type: change.type,
    id: change.id,
    action: change.action,
    modified_utc: formatDateTime(change.modifiedAt, 'UTC'),
    version: versionOf(change.modifiedAt),
    tombstone: object === undefined,
    object: object === undefined ? null : serialize(call, object),
  }));
  return { body: { changes, next_cursor: next, more } };
}

function serialize(call: Call<'listChanges'>, object: ChangedObject) {
  const { urls, context } = call;
  const links = { caller: context.caller };
  switch (object.type) {
    case 'event':
      return serializeEvent(object.row, {
        urls,
        siteZone: context.siteZone,
        caller: context.caller,
        single: true,
        currency: call.config.costCurrency,
        links: true,
      });
    case 'venue':
    case 'organizer':
      return serializeVenueOrOrganizer(object.type === 'venue' ? VENUE : ORGANIZER, object.row, {
        urls,
        siteZone: context.siteZone,
        single: true,
        links,
      });
    default:
      return serializeTerm(object.row, urls, links);
  }
}
