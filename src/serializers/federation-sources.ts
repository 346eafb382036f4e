// The calendars the calendar follows, as the document's FederationSource describes them.
import type { components } from '../../generated/api.js';
import type { SourceRow } from '../federation/sources.js';
import type { Urls } from '../http/urls.js';
import { formatDateTime } from '../lib/dates.js';

type FederationSource = components['schemas']['FederationSource'];

const utc = (date: Date) => formatDateTime(date, 'UTC');

export function serializeFederationSource(row: SourceRow, urls: Urls): FederationSource {
  return {
    id: row.id,
    actor: row.actorId,
    handle: row.handle,
    name: row.name,
    type: row.actorType,
    state: row.state,
    trusted: row.trusted,
    events: row.events,
    followed_utc: utc(row.createdAt),
    accepted_utc: row.acceptedAt ? utc(row.acceptedAt) : null,
    modified_utc: utc(row.modifiedAt),
    rest_url: `${urls.base}/federation/sources/${row.id}`,
  };
}
