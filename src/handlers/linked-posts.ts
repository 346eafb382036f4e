// The operations of venues and organizers; venues.ts and organizers.ts bind them to their kind.
import type { PostStatus } from '../auth/permissions.js';
import { versionOf } from '../http/conditional.js';
import type { Call, Reply } from '../http/handler.js';
import { listLinks, pageOf, postListReply } from '../lib/pagination.js';
import { COLLECTION, serializeLinked } from '../serializers/linked-posts.js';
import * as linked from '../services/linked-posts.js';
import { truthy } from '../services/posts.js';
import { keyOf } from './post-key.js';

interface LinkedQuery {
  page: number;
  per_page: number;
  search?: string;
  event?: number;
  has_events?: boolean | string;
  only_with_upcoming?: boolean | string;
  status?: PostStatus[];
}

export function linkedOperations(kind: linked.LinkedKind) {
  const collection = COLLECTION[kind.type];
  const options = (call: Call, single = false) => ({ urls: call.urls, siteZone: call.config.siteTimezone, single });
  const validators = (row: linked.LinkedRow) => ({ version: versionOf(row.modifiedAt), lastModified: row.modifiedAt });

  async function list(call: Call): Promise<Reply> {
    const q = call.query as LinkedQuery;
    const page = pageOf(q.page, q.per_page);
    const hasEvents = q.has_events === undefined ? undefined : truthy(q.has_events);
    const onlyWithUpcoming = truthy(q.only_with_upcoming);
    const { total, items } = await linked.listLinked(call.db.prisma, kind, call.caller, {
      page: page.page,
      perPage: page.perPage,
      search: q.search,
      event: q.event,
      hasEvents,
      onlyWithUpcoming,
      status: q.status,
    });
    const links = listLinks(
      `${call.urls.base}/${collection}/`,
      [
        ['search', q.search],
        ['event', q.event],
        ['has_events', hasEvents],
        ['only_with_upcoming', onlyWithUpcoming || undefined],
        ['status', q.status],
      ],
      page,
      total,
    );
    const serialized = items.map((row) => serializeLinked(kind, row, options(call)));
    return postListReply(collection, serialized, links, total, page.perPage);
  }

  async function create(call: Call): Promise<Reply> {
    const { row } = await linked.createLinked(
      call.db.prisma,
      kind,
      call.caller,
      call.body as linked.LinkedInput,
      call.config.siteTimezone,
    );
    const body = serializeLinked(kind, row, options(call));
    return { status: 201, body, headers: { Location: body.rest_url }, ...validators(row) };
  }

  async function get(call: Call): Promise<Reply> {
    const row = await linked.getLinked(call.db.prisma, kind, call.caller, keyOf(call));
    return { body: serializeLinked(kind, row, options(call, true)), ...validators(row) };
  }

  async function update(call: Call): Promise<Reply> {
    const input = (call.body ?? {}) as linked.LinkedInput;
    const row = await linked.updateLinked(
      call.db.prisma,
      kind,
      call.caller,
      keyOf(call),
      input,
      call.config.siteTimezone,
      call.precondition,
    );
    return { body: serializeLinked(kind, row, options(call)), ...validators(row) };
  }

  async function remove(call: Call): Promise<Reply> {
    const { force } = call.query as { force: boolean };
    const row = await linked.deleteLinked(call.db.prisma, kind, call.caller, keyOf(call), force, call.precondition);
    return { body: serializeLinked(kind, row, options(call)) };
  }

  return { list, create, get, update, remove };
}
