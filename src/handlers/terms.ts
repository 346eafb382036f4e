// The operations of both term resources; categories.ts and tags.ts bind them to their taxonomy.
import { versionOf } from '../http/conditional.js';
import type { Call, Reply } from '../http/handler.js';
import { listHeaders, listLinks, pageOf, totalPages } from '../lib/pagination.js';
import { COLLECTION, serializeTerm } from '../serializers/terms.js';
import * as terms from '../services/terms.js';

interface TermQuery {
  page: number;
  per_page: number;
  search?: string;
  exclude?: number[];
  include?: number[];
  order: 'asc' | 'desc';
  orderby: terms.TermListQuery['orderby'];
  hide_empty: boolean;
  parent?: number;
  post?: number;
  event?: number;
  slug?: string[];
}

export function termOperations(taxonomy: terms.Taxonomy) {
  const collection = COLLECTION[taxonomy];

  async function list(call: Call): Promise<Reply> {
    const q = call.query as TermQuery;
    const page = pageOf(q.page, q.per_page);
    const eventParam = q.post !== undefined ? 'post' : q.event !== undefined ? 'event' : undefined;
    const { total, items } = await terms.listTerms(call.db.prisma, call.caller, taxonomy, {
      page: page.page,
      perPage: page.perPage,
      search: q.search,
      exclude: q.exclude,
      include: q.include,
      order: q.order,
      orderby: q.orderby,
      hideEmpty: q.hide_empty,
      parent: q.parent,
      event: eventParam ? { id: (q.post ?? q.event)!, param: eventParam } : undefined,
      slug: q.slug,
    });
    const links = listLinks(
      `${call.urls.base}/${collection}/`,
      [
        ['search', q.search],
        ['exclude', q.exclude],
        ['include', q.include],
        ['order', q.order],
        ['orderby', q.orderby],
        ['hide_empty', q.hide_empty],
        ['parent', q.parent],
        [eventParam ?? 'post', q.post ?? q.event],
        ['slug', q.slug],
      ],
      page,
      total,
    );
    const body = {
      rest_url: links.rest_url,
      total,
      total_pages: totalPages(total, page.perPage),
      [collection]: items.map((t) => serializeTerm(t, call.urls)),
      ...(links.next_rest_url ? { next_rest_url: links.next_rest_url } : {}),
      ...(links.previous_rest_url ? { previous_rest_url: links.previous_rest_url } : {}),
    };
    return { body, headers: listHeaders(total, page.perPage, links) };
  }

  async function create(call: Call): Promise<Reply> {
    const term = await terms.createTerm(call.db.prisma, taxonomy, call.body);
    const body = serializeTerm(term, call.urls);
    return { status: 201, body, headers: { Location: body.urls.self }, version: versionOf(term.modifiedAt) };
  }

  async function get(call: Call): Promise<Reply> {
    const { id } = call.params as { id: number };
    const term = await terms.getTerm(call.db.prisma, taxonomy, id);
    return { body: serializeTerm(term, call.urls), version: versionOf(term.modifiedAt) };
  }

  async function update(call: Call): Promise<Reply> {
    const { id } = call.params as { id: number };
    const term = await terms.updateTerm(call.db.prisma, taxonomy, id, call.body, call.precondition);
    return { body: serializeTerm(term, call.urls), version: versionOf(term.modifiedAt) };
  }

  async function remove(call: Call): Promise<Reply> {
    const { id } = call.params as { id: number };
    const term = await terms.deleteTerm(call.db.prisma, taxonomy, id, call.precondition);
    return { body: serializeTerm(term, call.urls) };
  }

  return { list, create, get, update, remove };
}
