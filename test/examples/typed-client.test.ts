// The typed client example runs against the service: a change to the document or the service
// that breaks clients generated from it fails here (and in the type check, which covers examples/).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tour } from '../../examples/typed-client.js';
import { startServer, type TestServer } from '../setup/server.js';

describe('the typed client example', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startServer('pglite');
  });
  afterAll(() => s?.close());

  it('creates a venue, an organizer and events, then pages through the list', async () => {
    const result = await tour(s.base, s.users.author.appPassword);
    expect(result.venue.venue).toBe('Harbor Hall');
    expect(result.created.map((e) => e.organizer[0]?.id)).toEqual([
      result.organizer.id,
      result.organizer.id,
      result.organizer.id,
    ]);
    expect(result.listed.map((e) => e.id)).toEqual(result.created.map((e) => e.id));
    expect(result).toMatchObject({ pages: 2, total: 3 });
    expect(result.listed[0]).toMatchObject({
      start_date: '2041-05-01 19:00:00',
      timezone_abbr: 'EDT',
      status: 'publish',
    });
  });
});
