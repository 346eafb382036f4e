// Rows the tests need before the resources that make them have their own routes.
import type { Database } from '../src/db/client.js';

let counter = 0;

export async function insertEvent(
  db: Database,
  {
    status = 'publish',
    termIds = [] as number[],
    title = 'Event',
    start = new Date('2030-01-01T10:00:00Z'),
  }: { status?: 'publish' | 'draft' | 'trash'; termIds?: number[]; title?: string; start?: Date } = {},
) {
  counter += 1;
  const end = new Date(start.getTime() + 2 * 3600_000);
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
