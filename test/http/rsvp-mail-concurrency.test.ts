// What keeps RSVP by e-mail right when requests interleave, through two instances on one PostgreSQL
// database: a confirmation code used at once from both confirms once (the event's row lock, taken
// before the code is read: services/rsvps/anonymous.ts); one address asked for at once gets its
// day's confirmations and no more (the conditional upsert of mail_requests) and one RSVP (the unique
// index on its address); and two mail senders send each queued message once (the lease:
// src/mail/sender.ts).
import { afterAll, expect } from 'vitest';
import { purgeExpired } from '../../src/db/housekeeping.js';
import { describeEachDatabase, itOnPostgres } from '../setup/each-database.js';
import { secondInstance } from '../setup/second-instance.js';
import type { TestServer } from '../setup/server.js';
import { startSmtp, startTestSender } from '../setup/smtp.js';

const smtp = await startSmtp();
afterAll(() => smtp.close());

const LIMIT = 3;

async function anonymousEvent(s: TestServer, title: string) {
  const r = await s.post('/events', {
    title,
    start_date: '2044-03-01 19:00',
    end_date: '2044-03-01 21:00',
    rsvp: { open: true, anonymous: true },
  });
  expect(r.status, r.text).toBe(201);
  return r.body.id as number;
}

const post = (base: string, path: string, body: unknown) =>
  fetch(`${base}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

describeEachDatabase(
  'RSVP by e-mail under concurrency',
  (s, kind) => {
    const why = 'two pools on one database';
    itOnPostgres(kind, 'confirms once when one code is sent ten times at once through two instances', why, async () => {
      const id = await anonymousEvent(s, 'One code');
      const second = await secondInstance(s, { SMTP_URL: smtp.url });
      try {
        const asked = await post(s.base, `/events/${id}/rsvps`, { name: 'Twice', email: 'twice@example.org' });
        expect(asked.status).toBe(202);
        const [queued] = await s.db.prisma.mailOutbox.findMany({ where: { eventId: id, kind: 'confirm' } });
        const code = (queued.secrets as { code: string }).code;
        const rsvpId = queued.rsvpId;
        const answers = await Promise.all(
          Array.from({ length: 10 }, (_, i) =>
            post(i % 2 ? second.base : s.base, `/events/${id}/rsvps/${rsvpId}/confirm`, { code }).then((r) => r.status),
          ),
        );
        expect(answers.filter((a) => a === 200)).toHaveLength(1);
        expect(answers.filter((a) => a === 403)).toHaveLength(9);
        const going = await s.db.prisma.mailOutbox.count({ where: { eventId: id, kind: 'going' } });
        expect(going).toBe(1);
      } finally {
        await second.close();
      }
    });

    itOnPostgres(
      kind,
      'sends one address its day’s confirmations and no more, and keeps one RSVP for it',
      why,
      async () => {
        const id = await anonymousEvent(s, 'One address');
        const second = await secondInstance(s, { SMTP_URL: smtp.url, RSVP_CONFIRMATIONS_PER_DAY: String(LIMIT) });
        try {
          const answers = await Promise.all(
            Array.from({ length: 12 }, (_, i) =>
              post(i % 2 ? second.base : s.base, `/events/${id}/rsvps`, {
                name: `Same ${i}`,
                email: 'same@example.org',
              }).then((r) => r.status),
            ),
          );
          expect(answers.filter((a) => a === 202)).toHaveLength(LIMIT);
          expect(answers.filter((a) => a === 429)).toHaveLength(12 - LIMIT);
          expect(await s.db.prisma.rsvp.count({ where: { eventId: id } })).toBe(1);
          expect(await s.db.prisma.mailOutbox.count({ where: { eventId: id, kind: 'confirm' } })).toBe(LIMIT);
        } finally {
          await second.close();
        }
      },
    );

    itOnPostgres(kind, 'takes expired claims over while housekeeping deletes them, never failing', why, async () => {
      const id = await anonymousEvent(s, 'Expired claims');
      const emails = Array.from({ length: 12 }, (_, i) => `expired${i}@example.org`);
      for (const email of emails) await post(s.base, `/events/${id}/rsvps`, { name: 'Claim', email });
      await s.db.prisma.rsvp.updateMany({
        where: { eventId: id },
        data: { confirmExpires: new Date(Date.now() - 1000) },
      });
      const settings = { authWindowSeconds: 900, idempotencyHours: 24, changesRetentionDays: 30 };
      const [, ...answers] = await Promise.all([
        purgeExpired(s.db, settings),
        ...emails.map((email) => s.post(`/events/${id}/rsvps`, { name: 'Vouched', email })),
      ]);
      expect(answers.map((a) => a.status)).toEqual(Array(emails.length).fill(201));
      const rows = await s.db.prisma.rsvp.findMany({ where: { eventId: id } });
      expect(rows.map((r) => [r.status, r.confirmed])).toEqual(Array(emails.length).fill(['going', true]));
    });

    itOnPostgres(kind, 'sends each queued message once with two senders at work', why, async () => {
      const id = await anonymousEvent(s, 'Two senders');
      const rsvps = await Promise.all(
        Array.from({ length: 30 }, (_, i) =>
          s.post(`/events/${id}/rsvps`, { name: `Guest ${i}`, email: `guest${i}@senders.example.org` }),
        ),
      );
      expect(rsvps.map((r) => r.status)).toEqual(Array(30).fill(201));
      const senders = [startTestSender(s, smtp.url), startTestSender(s, smtp.url)];
      try {
        await Promise.all(senders.map((sender) => sender.flush()));
        for (let i = 0; i < 30; i++) await smtp.next(`guest${i}@senders.example.org`, "You're going");
        await Promise.all(senders.map((sender) => sender.flush()));
        const toThem = smtp.received.filter((m) => JSON.stringify(m.to).includes('senders.example.org'));
        expect(toThem).toHaveLength(30);
        expect(await s.db.prisma.mailOutbox.count({ where: { eventId: id } })).toBe(0);
      } finally {
        await Promise.all(senders.map((sender) => sender.stop()));
      }
    });
  },
  { env: { SMTP_URL: smtp.url, RSVP_CONFIRMATIONS_PER_DAY: String(LIMIT) } },
);
