// Idempotency-Key on creates, on both databases: a retry gets the first answer and creates
// nothing; another body is 422; keys are per user and expire after 24 hours; concurrent retries
// create one object. (Each body names a new category, which authors may create.) Expired rows are purged by the housekeeping.
import { expect, it } from 'vitest';
import { purgeExpired } from '../../src/db/housekeeping.js';
import { describeEachDatabase } from '../setup/each-database.js';

describeEachDatabase('Idempotency-Key', (s) => {
  let n = 0;
  const body = () => ({
    title: `Idempotent ${++n}`,
    start_date: '2034-01-01 10:00',
    end_date: '2034-01-01 11:00',
    categories: [`New category ${n}`],
  });
  const create = (b: object, key?: string, as: 'administrator' | 'author' = 'administrator') =>
    s.post('/events', b, { as, headers: key ? { 'idempotency-key': key } : {} });

  it('answers a retry with the first answer and creates nothing new', async () => {
    const b = body();
    const first = await create(b, `key-${n}`);
    expect(first.status).toBe(201);
    const count = await s.db.prisma.event.count();
    const retry = await create(b, `key-${n}`);
    expect(retry.status).toBe(201);
    expect(retry.body).toEqual(first.body);
    expect(retry.headers.get('location')).toBe(first.headers.get('location'));
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(await s.db.prisma.event.count()).toBe(count);
    expect(await s.db.prisma.term.count({ where: { name: b.categories[0] } })).toBe(1);
    // Without a key, the same body creates again.
    expect((await create(b)).body.id).not.toBe(first.body.id);
  });

  it('refuses the same key with another body (422), and keeps keys apart per user', async () => {
    const key = `shared-${++n}`;
    expect((await create(body(), key)).status).toBe(201);
    const other = await create(body(), key);
    expect(other.status).toBe(422);
    expect(other.body.code).toBe('rest_idempotency_key_reused');
    const b = body();
    const mine = await create(b, key, 'author');
    expect(mine.status).toBe(201);
    expect(mine.headers.get('idempotent-replayed')).toBeNull();
  });

  it('frees the key of a refused create, and refuses malformed keys', async () => {
    const key = `fix-${++n}`;
    const bad = await create({ title: 'x', start_date: 'nope', end_date: '2034-01-01' }, key);
    expect(bad.status).toBe(400);
    expect((await create(body(), key)).status).toBe(201);
    const malformed = await create(body(), 'has space');
    expect(malformed.status).toBe(400);
  });

  it('creates one object for concurrent retries with the same key', async () => {
    const b = body();
    const key = `race-${n}`;
    const results = await Promise.all(Array.from({ length: 5 }, () => create(b, key)));
    const created = results.filter((r) => r.status === 201);
    expect(created.length).toBeGreaterThan(0);
    expect(new Set(created.map((r) => r.body.id)).size).toBe(1);
    for (const r of results.filter((r) => r.status !== 201)) {
      expect(r.status).toBe(409);
      expect(r.headers.get('retry-after')).toBe('1');
    }
    expect(await s.db.prisma.event.count({ where: { title: b.title } })).toBe(1);
  });

  it('frees a key whose first request never finished (its instance died)', async () => {
    const b = body();
    const key = `abandoned-${n}`;
    await create(b, key);
    // As if the request had crashed before storing its answer, a minute ago: its event was rolled back too.
    await s.db.prisma.idempotencyKey.updateMany({
      where: { key },
      data: { status: null, body: null, createdAt: new Date(Date.now() - 61_000) },
    });
    const retry = await create(b, key);
    expect(retry.status).toBe(201);
    expect(retry.headers.get('idempotent-replayed')).toBeNull();
    await s.db.prisma.idempotencyKey.updateMany({
      where: { key },
      data: { status: null, body: null, createdAt: new Date() },
    });
    expect((await create(b, key)).status).toBe(409);
  });

  it('forgets keys after 24 hours, and the housekeeping purges them with ended sign-in windows', async () => {
    const b = body();
    const key = `old-${n}`;
    const first = await create(b, key);
    await s.db.prisma.idempotencyKey.updateMany({
      where: { key },
      data: { createdAt: new Date(Date.now() - 25 * 3600_000) },
    });
    const later = await create(b, key);
    expect(later.status).toBe(201);
    expect(later.body.id).not.toBe(first.body.id);

    await s.db.prisma.idempotencyKey.create({
      data: {
        userId: 0,
        key: `stale-${n}`,
        operation: 'createEvent',
        requestHash: '0'.repeat(64),
        createdAt: new Date(Date.now() - 48 * 3600_000),
      },
    });
    await s.db.prisma.authFailure.create({
      data: { client: `203.0.113.${n}`, failures: 3, windowStart: new Date(Date.now() - 3600_000) },
    });
    await s.db.prisma.authFailure.create({ data: { client: `198.51.100.${n}`, failures: 3, windowStart: new Date() } });
    await purgeExpired(s.db, { authWindowSeconds: 900, idempotencyHours: 24, changesRetentionDays: 30 });
    expect(await s.db.prisma.idempotencyKey.count({ where: { key: `stale-${n}` } })).toBe(0);
    expect(await s.db.prisma.idempotencyKey.count({ where: { key } })).toBe(1);
    expect(await s.db.prisma.authFailure.count({ where: { client: `203.0.113.${n}` } })).toBe(0);
    expect(await s.db.prisma.authFailure.count({ where: { client: `198.51.100.${n}` } })).toBe(1);
  });
});
