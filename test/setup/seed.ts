// One of each resource, named "Seed" (slug `seed`), so that generated requests find something to
// read, link to and change.
import type { TestServer } from './server.js';

export async function seedOneOfEach(s: TestServer): Promise<void> {
  await s.post('/categories', { name: 'Seed' });
  await s.post('/tags', { name: 'Seed' });
  const venue = (await s.post('/venues', { venue: 'Seed' })).body;
  await s.post('/organizers', { organizer: 'Seed' });
  await s.post('/events', {
    title: 'Seed',
    start_date: 'tomorrow',
    end_date: '+2 days',
    venue: venue.id,
    categories: ['Seed'],
    tags: ['Seed'],
  });
}
