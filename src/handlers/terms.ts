// The operations of both term resources; categories.ts and tags.ts bind them to their taxonomy.
import { appliedFilters, pageOf, totalPages } from '../domain/paging.js';
import type { Taxonomy } from '../domain/records.js';
import { versionOf } from '../http/conditional.js';
import type { Call, Reply } from '../http/handler.js';
import { listHeaders, listLinks } from '../http/lists.js';
import { COLLECTION, serializeTerm } from '../serializers/terms.js';
import * as terms from '../services/terms.js';

type List = 'listCategories' | 'listTags';
type Create = 'createCategory' | 'createTag';
type Read = 'getCategory' | 'getTag';
type Update = 'updateCategory' | 'putCategory' | 'patchCategory' | 'updateTag' | 'putTag' | 'patchTag';
type Delete = 'deleteCategory' | 'deleteTag';

/** The name the event filter was given under: `post`, as WordPress, or `event`; undefined when neither is. */
function eventFilterName(q: { post?: number; event?: number }): 'post' | 'event' | undefined {
  if (q.post !== undefined) return 'post';
  return q.event !== undefined ? 'event' : undefined;
}

export function termOperations(taxonomy: Taxonomy) {
  const collection = COLLECTION[taxonomy];

  async function list(call: Call<List>): Promise<Reply> {
    const q = call.query;
    const page = pageOf(q.page, q.per_page);
    const eventParam = eventFilterName(q);
    const eventId = q.post ?? q.event;
    const { total, items } = await terms.listTerms(call.context, taxonomy, {
      page: page.page,
      perPage: page.perPage,
      search: q.search,
      exclude: q.exclude,
      include: q.include,
      order: q.order,
      orderby: q.orderby,
      hideEmpty: q.hide_empty,
      parent: 'parent' in q ? q.parent : undefined,
      event: eventParam && eventId !== undefined ? { id: eventId, param: eventParam } : undefined,
      slug: q.slug,
      modifiedAfter: q.modified_after,
    });
    const links = listLinks(
      `${call.urls.base}/${collection}/`,
      [
        ...appliedFilters(q, ['search', 'exclude', 'include', 'order', 'orderby', 'hide_empty']),
        ['parent', 'parent' in q ? q.parent : undefined],
        [eventParam ?? 'post', eventId],
        ...appliedFilters(q, ['slug', 'modified_after']),
      ],
      page,
      total,
    );
    const body = {
      rest_url: links.rest_url,
      total,
      total_pages: totalPages(total, page.perPage),
      [collection]: items.map((t) => serializeTerm(t, call.urls, { caller: call.context.caller })),
      ...(links.next_rest_url ? { next_rest_url: links.next_rest_url } : {}),
      ...(links.previous_rest_url ? { previous_rest_url: links.previous_rest_url } : {}),
    };
    return { body, headers: listHeaders(total, page.perPage, links) };
  }

  async function create(call: Call<Create>): Promise<Reply> {
    const term = await terms.createTerm(call.context, taxonomy, call.body);
    const body = serializeTerm(term, call.urls, { caller: call.context.caller });
    return { status: 201, body, headers: { Location: body.urls.self }, version: versionOf(term.modifiedAt) };
  }

  async function get(call: Call<Read>): Promise<Reply> {
    const term = await terms.getTerm(call.context, taxonomy, call.params.id);
    return {
      body: serializeTerm(term, call.urls, { caller: call.context.caller }),
      version: versionOf(term.modifiedAt),
    };
  }

  async function update(call: Call<Update>): Promise<Reply> {
    const term = await terms.updateTerm(call.context, taxonomy, call.params.id, call.body);
    return {
      body: serializeTerm(term, call.urls, { caller: call.context.caller }),
      version: versionOf(term.modifiedAt),
    };
  }

  async function remove(call: Call<Delete>): Promise<Reply> {
    const term = await terms.deleteTerm(call.context, taxonomy, call.params.id);
    // Deleted for good: no links to what is gone, as WordPress answers a permanent delete.
    return { body: serializeTerm(term, call.urls) };
  }

  return { list, create, get, update, remove };
}
