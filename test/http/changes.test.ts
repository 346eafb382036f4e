// The change feed: every write that changes what a reader sees is one change, in order, with the
// object as the reader may read it now or a tombstone; a copy that replays the feed from any cursor
// ends equal to the server; cursors stay valid when the feed is empty, expire with the retention,
// and no change ever appears behind one already given, however writers interleave.
import pg from 'pg';
import { expect, it } from 'vitest';
import { pruneChanges } from '../../src/db/housekeeping.js';
import type { Role } from '../../src/auth/roles.js';
import { describeEachDatabase, itOnPostgres } from '../setup/each-database.js';
import type { TestServer } from '../setup/server.js';
import { settled } from '../setup/feed.js';

interface Change {
  cursor: string;
  type: string;
  id: number;
  action: string;
  tombstone: boolean;
  object: { id: number; [key: string]: unknown } | null;
}

/** Reads the feed from `since` to its end, `perPage` at a time: the changes and the last cursor. */
async function follow(s: TestServer, since?: string, perPage = 3, as: Role | null = 'administrator', settle = true) {
  if (settle) await settled(s);
  const changes: Change[] = [];
  let cursor = since;
  for (;;) {
    const r = await s.get(`/changes?per_page=${perPage}${cursor ? `&since=${cursor}` : ''}`, { as });
    expect(r.status, `${cursor}: ${r.text}`).toBe(200);
    changes.push(...r.body.changes);
    cursor = r.body.next_cursor;
    if (!r.body.more) return { changes, cursor: cursor! };
  }
}

/** A copy kept by applying changes: store the object, remove a tombstone. */
function replay(copy: Map<string, unknown>, changes: Change[]) {
  for (const c of changes) {
    if (c.tombstone) copy.delete(`${c.type}:${c.id}`);
    else copy.set(`${c.type}:${c.id}`, c.object);
  }
  return copy;
}

const actions = (changes: Change[], type: string, id: number) =>
  changes.filter((c) => c.type === type && c.id === id).map((c) => c.action);

const TOKEN = 'change-feed-lag-metrics';

describeEachDatabase('the change feed', (s, kind) => {
  it('gives each write once, in order, with the object as it is now, and a copy that replays it ends equal', async () => {
    const start = await follow(s);
    const venue = (await s.post('/venues', { venue: 'Harbor Hall', city: 'Lyon' })).body;
    const event = (
      await s.post('/events', {
        title: 'Feed concert',
        start_date: '2045-03-01 20:00',
        end_date: '2045-03-01 22:00',
        venue: venue.id,
        categories: ['feed-music'],
      })
    ).body;
    const after = await follow(s, start.cursor);
    // One change per object and request: the event with its links is one `created`.
    expect(actions(after.changes, 'event', event.id)).toEqual(['created']);
    expect(actions(after.changes, 'venue', venue.id)).toEqual(['created']);
    const category = event.categories[0];
    expect(actions(after.changes, 'category', category.id)).toEqual(['created']);

    // Renaming the venue changes what the event shows: a change of both.
    await s.post(`/venues/${venue.id}`, { venue: 'Harbour Hall' });
    const renamed = await follow(s, after.cursor);
    expect(renamed.changes.map((c) => `${c.type}:${c.id}:${c.action}`).sort()).toEqual(
      [`venue:${venue.id}:updated`, `event:${event.id}:updated`].sort(),
    );
    const shown = renamed.changes.find((c) => c.type === 'event')!.object as any;
    expect(shown.venue.venue).toBe('Harbour Hall');

    // A category's new parent changes its URL, and with it every category below and their events.
    const parent = (await s.post('/categories', { name: 'Feed parent' })).body;
    const child = (await s.post('/categories', { name: 'Feed child', parent: category.id })).body;
    const beforeMove = await follow(s, renamed.cursor);
    await s.request('PATCH', `/categories/${category.id}`, { body: { parent: parent.id } });
    const moved = await follow(s, beforeMove.cursor);
    expect(moved.changes.map((c) => `${c.type}:${c.id}`).sort()).toEqual(
      [`category:${category.id}`, `category:${child.id}`, `event:${event.id}`].sort(),
    );

    await s.request('DELETE', `/events/${event.id}`);
    await s.request('DELETE', `/events/${event.id}?force=true`);
    await s.request('PUT', `/categories/${category.id}`, { body: { name: 'Feed music!' } });
    const end = await follow(s, moved.cursor);
    expect(actions(end.changes, 'event', event.id)).toEqual(['trashed', 'deleted']);
    expect(end.changes.filter((c) => c.type === 'event').every((c) => c.tombstone && c.object === null)).toBe(true);

    // Replaying everything from the start gives what the lists show now.
    const copy = replay(new Map(), [
      ...after.changes,
      ...renamed.changes,
      ...beforeMove.changes,
      ...moved.changes,
      ...end.changes,
    ]);
    expect(copy.has(`event:${event.id}`)).toBe(false);
    expect((copy.get(`venue:${venue.id}`) as any).venue).toBe('Harbour Hall');
    expect(copy.get(`venue:${venue.id}`)).toEqual((await s.get(`/venues/${venue.id}`)).body);
    expect((copy.get(`category:${category.id}`) as any).name).toBe('Feed music!');
    // Any cursor: replaying from the middle onto the copy as it was there ends the same.
    const fromMiddle = replay(replay(new Map(), after.changes), (await follow(s, after.cursor)).changes);
    expect(fromMiddle).toEqual(copy);
  });

  it('records a link once for its event: one `created` with every link, one `updated` when links change', async () => {
    // A link's trigger skips the change its event already has in the transaction (migration
    // link_change_once); these are the cases where it must, and one where there is none to skip.
    const start = await follow(s);
    const venue = (await s.post('/venues', { venue: 'Linked Hall' })).body;
    const organizer = (await s.post('/organizers', { organizer: 'Linked Guild' })).body;
    const other = (await s.post('/organizers', { organizer: 'Other Guild' })).body;
    const category = (await s.post('/categories', { name: 'Linked music' })).body;
    const tag = (await s.post('/tags', { name: 'linked-tag' })).body;
    const created = await s.post('/events', {
      title: 'Linked concert',
      start_date: '2045-04-01 20:00',
      end_date: '2045-04-01 22:00',
      venue: venue.id,
      organizer: [organizer.id],
      categories: [category.id],
      tags: [tag.id],
    });
    expect(created.status).toBe(201);
    const event = created.body;
    const afterCreate = await follow(s, start.cursor);
    expect(actions(afterCreate.changes, 'event', event.id)).toEqual(['created']);
    const shown = afterCreate.changes.find((c) => c.type === 'event' && c.id === event.id)!.object as any;
    expect(shown.organizer.map((o: { id: number }) => o.id)).toEqual([organizer.id]);
    expect(shown.tags.map((t: { id: number }) => t.id)).toEqual([tag.id]);

    // Links of an existing event changed (organizers reordered and added, a tag removed): one `updated`.
    const changed = await s.request('PATCH', `/events/${event.id}`, {
      body: { organizer: [other.id, organizer.id], tags: [] },
    });
    expect(changed.status).toBe(200);
    const afterChange = await follow(s, afterCreate.cursor);
    expect(afterChange.changes.map((c) => `${c.type}:${c.id}:${c.action}`)).toContain(`event:${event.id}:updated`);
    expect(actions(afterChange.changes, 'event', event.id)).toEqual(['updated']);
    const now = afterChange.changes.find((c) => c.type === 'event' && c.id === event.id)!.object as any;
    expect(now.organizer.map((o: { id: number }) => o.id)).toEqual([other.id, organizer.id]);
    expect(now.tags).toEqual([]);

    // A link removed without the event's row being written (its category deleted): still its change.
    expect((await s.request('DELETE', `/categories/${category.id}`)).status).toBe(200);
    const afterDelete = await follow(s, afterChange.cursor);
    expect(actions(afterDelete.changes, 'category', category.id)).toEqual(['deleted']);
    expect(actions(afterDelete.changes, 'event', event.id)).toEqual(['updated']);
    expect((afterDelete.changes.find((c) => c.type === 'event')!.object as any).categories).toEqual([]);
  });

  it('shows each reader only what it may read: a draft, or an event that stops being public, is a tombstone', async () => {
    const start = await follow(s, undefined, 50, null);
    const event = (
      await s.post('/events', { title: 'Soon private', start_date: '2045-04-01 20:00', end_date: '2045-04-01 21:00' })
    ).body;
    const draft = (
      await s.post('/events', {
        title: 'A draft',
        status: 'draft',
        start_date: '2045-04-02 20:00',
        end_date: '2045-04-02 21:00',
      })
    ).body;
    const seen = await follow(s, start.cursor, 50, null);
    expect(seen.changes.find((c) => c.id === event.id)!.object!.id).toBe(event.id);
    const hidden = seen.changes.find((c) => c.id === draft.id)!;
    expect([hidden.tombstone, hidden.object]).toEqual([true, null]);
    expect(JSON.stringify(hidden)).not.toContain('A draft');

    await s.request('PATCH', `/events/${event.id}`, { body: { status: 'draft' } });
    const anonymous = await follow(s, seen.cursor, 50, null);
    expect(anonymous.changes.map((c) => [c.id, c.action, c.tombstone])).toEqual([[event.id, 'updated', true]]);
    const editor = await follow(s, seen.cursor, 50, 'editor');
    expect(editor.changes.map((c) => [c.id, c.action, c.tombstone, c.object?.status])).toEqual([
      [event.id, 'updated', false, 'draft'],
    ]);
  });

  it('ends a page of big objects short of per_page, by size, and the next page goes on where it ended', async () => {
    const { cursor: start } = await follow(s);
    const long = `<p>${'A long programme note. '.repeat(2800)}</p>`; // about 64 KB
    const ids: number[] = [];
    for (let i = 0; i < 40; i++) {
      const r = await s.post('/events', {
        title: `Big ${i}`,
        description: long,
        start_date: '2046-01-01 10:00',
        end_date: '2046-01-01 11:00',
      });
      ids.push(r.body.id);
    }
    await settled(s);
    const first = await s.get(`/changes?per_page=500&since=${start}`);
    expect(first.body.changes.length).toBeGreaterThan(1);
    expect(first.body.changes.length).toBeLessThan(40);
    expect(first.body.more).toBe(true);
    expect(first.body.next_cursor).toBe(first.body.changes.at(-1).cursor);
    expect(first.text.length).toBeLessThan(4 * 1024 * 1024);
    const all = await follow(s, start, 500);
    expect(all.changes.map((c) => c.id)).toEqual(ids);
  });

  it('gives a valid cursor when nothing changed, and records nothing for a write that fails', async () => {
    const { cursor } = await follow(s);
    const empty = await s.get(`/changes?since=${cursor}`);
    expect(empty.body).toEqual({ changes: [], next_cursor: expect.any(String), more: false });
    // A create that fails (a venue that does not exist) leaves no change behind.
    const failed = await s.post('/events', {
      title: 'Never',
      start_date: '2045-05-01 20:00',
      end_date: '2045-05-01 21:00',
      venue: 999999,
    });
    expect(failed.status).toBe(400);
    await settled(s);
    expect((await s.get(`/changes?since=${empty.body.next_cursor}`)).body.changes).toEqual([]);
    const tag = (await s.post('/tags', { name: 'after-empty' })).body;
    await settled(s);
    const next = await s.get(`/changes?since=${empty.body.next_cursor}`);
    expect(next.body.changes.map((c: Change) => [c.type, c.id, c.action])).toEqual([['tag', tag.id, 'created']]);
  });

  it('refuses a cursor it never gave (400) and one older than the changes it keeps (410)', async () => {
    const { cursor } = await follow(s);
    expect((await s.get('/changes?since=abc')).status).toBe(400);
    expect((await s.get('/changes?since=99999999999999999999-1')).status).toBe(400);
    const ahead = await s.get('/changes?since=9999999999-0');
    expect([ahead.status, ahead.body.code]).toEqual([400, 'rest_invalid_param']);
    expect((await s.get('/changes?per_page=501')).status).toBe(400);

    await s.post('/tags', { name: 'before-pruning' });
    const old = (await follow(s)).changes[0].cursor;
    // Retention passes for every change recorded so far.
    await pruneChanges(s.db.prisma, new Date(Date.now() + 1000));
    const expired = await s.get(`/changes?since=${old}`);
    expect([expired.status, expired.body.code]).toEqual([410, 'rest_changes_cursor_expired']);
    // The end of the feed as it was is still a place to go on from, and the feed starts there now.
    expect((await s.get(`/changes?since=${cursor}`)).status).toBe(410);
    const fresh = await follow(s);
    expect(fresh.changes).toEqual([]);
    const tag = (await s.post('/tags', { name: 'after-pruning' })).body;
    expect((await follow(s, fresh.cursor)).changes.map((c) => c.id)).toEqual([tag.id]);
  });

  it('prunes a large backlog in chunks, every old change, none of the newer ones', async () => {
    await s.db.prisma.$executeRaw`
      INSERT INTO changes (object_type, object_id, action, modified_at, recorded_at)
      SELECT 'tag', 1000000 + g, 'updated', now(), now() - interval '40 days' FROM generate_series(1, 12000) g`;
    const tag = (await s.post('/tags', { name: 'kept-after-pruning' })).body;
    await pruneChanges(s.db.prisma, new Date(Date.now() - 30 * 86_400_000));
    const [{ old }] = await s.db.prisma.$queryRaw<{ old: number }[]>`
      SELECT count(*)::int AS old FROM changes WHERE recorded_at < now() - interval '30 days'`;
    expect(old).toBe(0);
    const { changes } = await follow(s, undefined, 500);
    expect(changes.map((c) => c.id)).toContain(tag.id);
  });

  it('lists only what changed after modified_after, on every list, for simple polling', async () => {
    const old = (await s.post('/venues', { venue: 'Polled before' })).body;
    await new Promise((resolve) => setTimeout(resolve, 5));
    const since = new Date().toISOString();
    await new Promise((resolve) => setTimeout(resolve, 5));
    const venue = (await s.post('/venues', { venue: 'Polled after' })).body;
    const organizer = (await s.post('/organizers', { organizer: 'Polled organizer' })).body;
    const tag = (await s.post('/tags', { name: 'polled-tag' })).body;
    // An event long past: polling drops the default window of the coming years.
    const event = (
      await s.post('/events', { title: 'Polled past', start_date: '2001-01-01 10:00', end_date: '2001-01-01 11:00' })
    ).body;
    const ids = async (collection: string, more = '') => {
      const r = await s.get(`/${collection}?modified_after=${encodeURIComponent(since)}&per_page=50${more}`);
      expect(r.status).toBe(200);
      return r.body[collection].map((item: { id: number }) => item.id);
    };
    expect(await ids('venues')).toEqual([venue.id]);
    expect(await ids('venues')).not.toContain(old.id);
    expect(await ids('organizers')).toEqual([organizer.id]);
    // Terms no published event carries are hidden by default.
    expect(await ids('tags')).toEqual([]);
    expect(await ids('tags', '&hide_empty=false')).toEqual([tag.id]);
    expect(await ids('events')).toEqual([event.id]);
    await s.post(`/venues/${old.id}`, { city: 'Changed' });
    expect((await ids('venues')).sort()).toEqual([old.id, venue.id].sort());
    // The page links keep the filter.
    const paged = await s.get(`/venues?modified_after=${encodeURIComponent(since)}&per_page=1`);
    expect(new URL(paged.body.next_rest_url as string).searchParams.get('modified_after')).toBe(since);
    const bad = await s.get('/events?modified_after=not-a-date');
    expect([bad.status, Object.keys(bad.body.data.params)]).toEqual([400, ['modified_after']]);
  });

  itOnPostgres(
    kind,
    'never gives a change behind a cursor it gave, with writers in parallel and a reader following',
    'writers run one at a time on one connection',
    async () => {
      const { cursor: start } = await follow(s);
      const created: number[] = [];
      let writing = true;
      const writers = Array.from({ length: 6 }, async (_, w) => {
        for (let i = 0; i < 8; i++) {
          const r = await s.post('/events', {
            title: `Race ${w}-${i}`,
            start_date: '2045-06-01 20:00',
            end_date: '2045-06-01 21:00',
            categories: [`race-${i % 3}`],
          });
          expect([r.status, r.body]).toEqual([201, expect.anything()]);
          created.push(r.body.id);
        }
      });
      // The reader follows while the writers write, in small pages.
      const seen: Change[] = [];
      const reader = (async () => {
        let cursor = start;
        while (writing) {
          // Without waiting: the reader follows the feed as it is while the writers write.
          const page = await follow(s, cursor, 4, 'administrator', false);
          seen.push(...page.changes);
          cursor = page.cursor;
        }
        seen.push(...(await follow(s, cursor, 4)).changes);
      })();
      await Promise.all(writers);
      writing = false;
      await reader;
      const createdSeen = seen.filter((c) => c.type === 'event' && c.action === 'created').map((c) => c.id);
      expect(createdSeen.sort((a, b) => a - b)).toEqual([...created].sort((a, b) => a - b));
      // Each change once: no cursor twice.
      expect(new Set(seen.map((c) => c.cursor)).size).toBe(seen.length);
    },
  );
});

// One long transaction anywhere on the server holds the feed back (migration change_feed): how far,
// /readyz and /metrics say, without failing readiness.
describeEachDatabase(
  'the lag of the change feed',
  (s, kind) => {
    const readyz = async () => (await (await fetch(`${s.origin}/readyz`)).json()) as Record<string, any>;
    const metric = async (name: string) => {
      const text = await (await fetch(`${s.origin}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } })).text();
      return Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1]);
    };

    it('reports no change held back when no transaction is running', async () => {
      expect(await readyz()).toMatchObject({ status: 'ready', change_feed: { held_back: 0 } });
      expect(await metric('change_feed_held_back_changes')).toBe(0);
    });

    itOnPostgres(
      kind,
      'reports the changes held back behind a transaction still running, and their age',
      'no other transaction can run beside the one connection',
      async () => {
        const holder = new pg.Client({ connectionString: s.db.connectionString });
        await holder.connect();
        try {
          await holder.query('BEGIN');
          await holder.query('SELECT pg_current_xact_id()');
          for (let i = 0; i < 3; i++) {
            const r = await s.post('/tags', { name: `Held back ${i}` });
            expect(r.status).toBe(201);
          }
          await new Promise((resolve) => setTimeout(resolve, 1100));
          const held = await readyz();
          expect(held.status).toBe('ready');
          expect(held.change_feed.held_back).toBeGreaterThanOrEqual(3);
          expect(held.change_feed.lag_seconds).toBeGreaterThanOrEqual(1);
          expect(await metric('change_feed_held_back_changes')).toBeGreaterThanOrEqual(3);
          expect(await metric('change_feed_lag_seconds')).toBeGreaterThanOrEqual(1);
        } finally {
          await holder.query('COMMIT');
          await holder.end();
        }
        // Other tests' transactions on the same server may hold it a moment longer.
        let after = await readyz();
        for (let i = 0; i < 200 && after.change_feed.held_back > 0; i++) {
          await new Promise((resolve) => setTimeout(resolve, 100));
          after = await readyz();
        }
        expect(after.change_feed.held_back).toBe(0);
      },
    );
  },
  { env: { METRICS_TOKEN: TOKEN } },
);
