// The operations of venues and organizers; venues.ts and organizers.ts bind them to their kind.
import { appliedFilters, pageOf } from '../domain/paging.js';
import type { VenueOrOrganizerKind, VenueOrOrganizerRecord } from '../domain/records.js';
import { versionOf } from '../http/conditional.js';
import type { Call, Reply } from '../http/handler.js';
import { listLinks, postListReply } from '../http/lists.js';
import { truthy } from '../lib/truthy.js';
import { COLLECTION, serializeVenueOrOrganizer } from '../serializers/venues-and-organizers.js';
import * as service from '../services/venues-and-organizers.js';
import { keyOf } from './post-key.js';

type List = 'listVenues' | 'listOrganizers';
type Create = 'createVenue' | 'createOrganizer';
type Read = 'getVenue' | 'getVenueBySlug' | 'getOrganizer' | 'getOrganizerBySlug';
type Update =
  | 'updateVenue'
  | 'putVenue'
  | 'patchVenue'
  | 'updateVenueBySlug'
  | 'putVenueBySlug'
  | 'patchVenueBySlug'
  | 'updateOrganizer'
  | 'putOrganizer'
  | 'patchOrganizer'
  | 'updateOrganizerBySlug'
  | 'putOrganizerBySlug'
  | 'patchOrganizerBySlug';
type Delete = 'deleteVenue' | 'deleteVenueBySlug' | 'deleteOrganizer' | 'deleteOrganizerBySlug';

export function venueOrOrganizerOperations(kind: VenueOrOrganizerKind) {
  const collection = COLLECTION[kind.type];
  const options = (call: Pick<Call, 'urls' | 'context'>, { single = false, links = true } = {}) => ({
    urls: call.urls,
    siteZone: call.context.siteZone,
    single,
    ...(links ? { links: { caller: call.context.caller } } : {}),
  });
  const validators = (row: VenueOrOrganizerRecord) => ({
    version: versionOf(row.modifiedAt),
    lastModified: row.modifiedAt,
  });

  async function list(call: Call<List>): Promise<Reply> {
    const { page: pageNumber, per_page, ...q } = call.query;
    const page = pageOf(pageNumber, per_page);
    const hasEvents = q.has_events === undefined ? undefined : truthy(q.has_events);
    const onlyWithUpcoming = truthy(q.only_with_upcoming);
    const { total, items } = await service.listVenuesOrOrganizers(
      call.context,
      kind,
      { ...q, hasEvents, onlyWithUpcoming },
      { take: page.perPage, skip: page.offset },
    );
    const links = listLinks(
      `${call.urls.base}/${collection}/`,
      [
        ...appliedFilters(q, ['search', 'event']),
        ['has_events', hasEvents],
        ['only_with_upcoming', onlyWithUpcoming || undefined],
        ...appliedFilters(q, ['status', 'modified_after']),
      ],
      page,
      total,
    );
    const serialized = items.map((row) => serializeVenueOrOrganizer(kind, row, options(call)));
    return postListReply(collection, serialized, links, total, page.perPage);
  }

  async function create(call: Call<Create>): Promise<Reply> {
    const { row } = await service.createVenueOrOrganizer(call.context, kind, call.body);
    const body = serializeVenueOrOrganizer(kind, row, options(call));
    return { status: 201, body, headers: { Location: body.rest_url }, ...validators(row) };
  }

  async function get(call: Call<Read>): Promise<Reply> {
    const row = await service.getVenueOrOrganizer(call.context, kind, keyOf(call.params));
    return { body: serializeVenueOrOrganizer(kind, row, options(call, { single: true })), ...validators(row) };
  }

  async function update(call: Call<Update>): Promise<Reply> {
    const row = await service.updateVenueOrOrganizer(call.context, kind, keyOf(call.params), call.body);
    return { body: serializeVenueOrOrganizer(kind, row, options(call)), ...validators(row) };
  }

  async function remove(call: Call<Delete>): Promise<Reply> {
    const row = await service.deleteVenueOrOrganizer(call.context, kind, keyOf(call.params), call.query.force);
    // A trashed item keeps its links; one deleted for good has none, as WordPress answers.
    return { body: serializeVenueOrOrganizer(kind, row, options(call, { links: !call.query.force })) };
  }

  return { list, create, get, update, remove };
}
