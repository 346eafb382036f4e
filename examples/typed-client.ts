// A client typed from the service's OpenAPI document: openapi-fetch with the types openapi-typescript
// generated from it (generated/api.d.ts; a third party generates the same from GET /doc). It creates a
// venue, an organizer and an event, then pages through the list. Against a running service:
//
//   CALENDAR_URL=http://127.0.0.1:8080/wp-json/calendar/events/v1 \
//   CALENDAR_TOKEN='<application password>' npx tsx examples/typed-client.ts
import createClient from 'openapi-fetch';
import type { components, paths } from '../generated/api.js';
import { type Plain, plain } from './plain.js';

type Event = components['schemas']['Event'];

/** Stops with the service's error (`{code, message, data}`) when a call did not succeed. */
function ok<T>(result: { data?: T; error?: unknown; response: Response }): Plain<T> {
  const { data } = result;
  if (data === undefined) throw new Error(`${result.response.status}: ${JSON.stringify(result.error)}`);
  return plain(data as T);
}

export async function tour(baseUrl: string, token: string) {
  const client = createClient<paths>({ baseUrl, headers: { Authorization: `Bearer ${token}` } });

  const venue = ok(await client.POST('/venues', { body: { venue: 'Harbor Hall', city: 'Portland', state: 'ME' } }));
  const organizer = ok(
    await client.POST('/organizers', { body: { organizer: 'Harbor Arts', email: 'hello@harborarts.example.com' } }),
  );
  const created: Event[] = [];
  for (const [day, title] of ['Folk night', 'Jazz night', 'Poetry night'].entries()) {
    const event = ok(
      await client.POST('/events', {
        body: {
          title,
          start_date: `2041-05-0${day + 1} 19:00`,
          end_date: `2041-05-0${day + 1} 22:00`,
          timezone: 'America/New_York',
          venue: venue.id,
          organizer: [organizer.id],
          categories: ['Concerts'],
        },
      }),
    );
    created.push(event);
  }

  // Page through May 2041, two events at a time, as a calendar front end would.
  const listed: Event[] = [];
  for (let page = 1; ; page++) {
    const list = ok(
      await client.GET('/events', {
        params: { query: { page, per_page: 2, start_date: '2041-05-01', end_date: '2041-05-31', venue: [venue.id] } },
      }),
    );
    listed.push(...list.events);
    if (!list.next_rest_url) return { venue, organizer, created, listed, pages: page, total: list.total };
  }
}

// Run as a script: print what it did.
if (import.meta.url === `file://${process.argv[1]}`) {
  const result = await tour(
    process.env.CALENDAR_URL ?? 'http://127.0.0.1:8080/wp-json/calendar/events/v1',
    process.env.CALENDAR_TOKEN ?? '',
  );
  for (const event of result.listed)
    console.log(
      `${event.start_date} ${event.timezone_abbr}  ${event.title} at ${Array.isArray(event.venue) ? '-' : event.venue.venue}`,
    );
  console.log(`${result.total} events in ${result.pages} pages`);
}
