// The envelope of lists, their page links and their headers (docs/decisions.md, "Lists and paging").
import { type AppliedFilters, type Page, totalPages } from '../domain/paging.js';

export interface ListLinks {
  rest_url: string;
  next_rest_url?: string;
  previous_rest_url?: string;
}

/**
 * `rest_url` with every filter of the request, and the neighbouring pages when they exist.
 * `collectionUrl` is the collection with a trailing slash, as the modelled service writes it.
 */
export function listLinks(collectionUrl: string, args: AppliedFilters, page: Page, total: number): ListLinks {
  const pages = totalPages(total, page.perPage);
  const url = (n: number | undefined) => {
    const query = new URLSearchParams();
    if (n !== undefined) query.set('page', String(n));
    query.set('per_page', String(page.perPage));
    for (const [key, value] of args) {
      if (value === undefined || (Array.isArray(value) && value.length === 0)) continue;
      query.set(key, Array.isArray(value) ? value.join(',') : String(value));
    }
    return `${collectionUrl}?${query.toString()}`;
  };
  const links: ListLinks = { rest_url: url(page.page) };
  if (page.page < pages) links.next_rest_url = url(page.page + 1);
  if (page.page > 1) links.previous_rest_url = url(page.page > 2 ? page.page - 1 : undefined);
  return links;
}

export function listHeaders(total: number, perPage: number, links: ListLinks): Record<string, string> {
  const pages = String(totalPages(total, perPage));
  const headers: Record<string, string> = {
    'X-TEC-Total': String(total),
    'X-TEC-TotalPages': pages,
    'X-WP-Total': String(total),
    'X-WP-TotalPages': pages,
  };
  const rel = [
    links.previous_rest_url && `<${links.previous_rest_url}>; rel="prev"`,
    links.next_rest_url && `<${links.next_rest_url}>; rel="next"`,
  ].filter(Boolean);
  if (rel.length) headers.Link = rel.join(', ');
  return headers;
}

/**
 * The envelope of an event, venue or organizer list (docs/decisions.md, "Lists and paging": items first, links only
 * where there is such a page, then the totals) with its headers.
 */
export function postListReply(collection: string, items: unknown[], links: ListLinks, total: number, perPage: number) {
  const body = {
    [collection]: items,
    rest_url: links.rest_url,
    ...(links.next_rest_url ? { next_rest_url: links.next_rest_url } : {}),
    ...(links.previous_rest_url ? { previous_rest_url: links.previous_rest_url } : {}),
    total,
    total_pages: totalPages(total, perPage),
  };
  return { body, headers: listHeaders(total, perPage, links) };
}
