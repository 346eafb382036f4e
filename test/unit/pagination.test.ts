import { describe, expect, it } from 'vitest';
import { pageOf, totalPages } from '../../src/domain/paging.js';
import { listHeaders, listLinks } from '../../src/http/lists.js';

describe('pagination', () => {
  it.each([
    [0, 12, 0],
    [1, 12, 1],
    [12, 12, 1],
    [13, 12, 2],
  ])('%i items by %i make %i pages', (total, per, pages) => {
    expect(totalPages(total, per)).toBe(pages);
  });

  it('clamps per_page to 50', () => {
    expect(pageOf(3, 500)).toEqual({ page: 3, perPage: 50, offset: 100 });
  });

  it('links the neighbouring pages, keeping the filters and dropping page=1', () => {
    const links = listLinks(
      'http://h/c/',
      [
        ['search', 'a b'],
        ['include', [1, 2]],
        ['none', undefined],
      ],
      pageOf(2, 10),
      35,
    );
    expect(links).toEqual({
      rest_url: 'http://h/c/?page=2&per_page=10&search=a+b&include=1%2C2',
      next_rest_url: 'http://h/c/?page=3&per_page=10&search=a+b&include=1%2C2',
      previous_rest_url: 'http://h/c/?per_page=10&search=a+b&include=1%2C2',
    });
    expect(listHeaders(35, 10, links)).toEqual({
      'X-TEC-Total': '35',
      'X-TEC-TotalPages': '4',
      'X-WP-Total': '35',
      'X-WP-TotalPages': '4',
      Link: `<${links.previous_rest_url}>; rel="prev", <${links.next_rest_url}>; rel="next"`,
    });
  });

  it('has no links beyond the last page', () => {
    expect(listLinks('http://h/c/', [], pageOf(1, 10), 5)).toEqual({ rest_url: 'http://h/c/?page=1&per_page=10' });
  });
});
