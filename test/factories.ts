// Rows the tests need before the resources that make them have their own routes.
import type { Database } from '../src/db/client.js';

let counter = 0;

export async function insertEvent(
  db: Database,
  { status = 'publish', termIds = [] as number[], title = 'Event' }: { status?: 'publish' | 'draft' | 'trash'; termIds?: number[]; title?: string } = {},
) {
  counter += 1;
  const start = new Date('2030-01-01T10:00:00Z');
  const end = new Date('2030-01-01T12:00:00Z');
  return db.prisma.event.create({
    data: {
      title,
      slug: `event-${counter}-${Math.random().toString(36).slice(2, 8)}`,
      status,
      startLocal: start,
      endLocal: end,
      startUtc: start,
      endUtc: end,
      timezone: 'UTC',
      terms: { create: termIds.map((termId) => ({ termId })) },
    },
  });
}
