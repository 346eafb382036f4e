// Reading a recurring series back through the API, for the recurring-event tests.
import { expect } from 'vitest';
import type { TestServer } from './server.js';

/** Every occurrence of a series with one of these statuses (all pages), by original start. */
export async function occurrencesOf(s: TestServer, id: number, status = 'publish,draft,trash'): Promise<any[]> {
  const found: any[] = [];
  for (let page = 1; ; page++) {
    const r = await s.get(
      `/events?post_parent=${id}&status=${status}&start_date=2000-01-01&end_date=2100-01-01&per_page=50&page=${page}`,
    );
    expect(r.status, r.text).toBe(200);
    found.push(...r.body.events);
    if (!r.body.next_rest_url) break;
  }
  return found.sort((a, b) => a.original_start_date.localeCompare(b.original_start_date));
}
