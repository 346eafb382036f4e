// RSVP by e-mail (docs/decisions.md, "RSVP"), on both databases, with the messages received by a
// real SMTP server on loopback: each status's message with the event as an iTIP invitation
// (REQUEST or CANCEL, read by ical.js), an RSVP without an account confirmed by its link's one-use
// code, its owner's token opening that RSVP and nothing else, the RSVP page's buttons, and the
// confirmation messages one address may be sent a day.
import ICAL from 'ical.js';
import type { ParsedMail } from 'mailparser';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { MailSender } from '../../src/mail/sender.js';
import { registry } from '../../src/metrics/registry.js';
import { openRsvpEvent } from '../setup/rsvp-events.js';
import { describeEachDatabase } from '../setup/each-database.js';
import type { TestServer } from '../setup/server.js';
import { startSmtp, startTestSender } from '../setup/smtp.js';

const smtp = await startSmtp();
afterAll(() => smtp.close());

/** An event open to RSVP (test/setup/rsvp-events.ts), in a zone of its own. */
const openEvent = async (s: TestServer, rsvp: Record<string, unknown> = {}) =>
  (await openRsvpEvent(s, rsvp, {
    start_date: '2043-06-10 19:00',
    end_date: '2043-06-10 21:00',
    timezone: 'Europe/Paris',
  })) as { id: number; title: string };

/** The iTIP part of a message (nodemailer sends it as the text/calendar alternative), read by ical.js. */
function invitation(mail: ParsedMail) {
  const part = mail.attachments.find((a) => a.contentType.startsWith('text/calendar'));
  const text = part ? part.content.toString('utf8') : '';
  expect(text, `no text/calendar part in "${mail.subject}"`).toContain('BEGIN:VCALENDAR');
  const calendar = new ICAL.Component(ICAL.parse(text));
  const vevent = calendar.getFirstSubcomponent('vevent');
  if (!vevent) throw new Error('no VEVENT');
  return {
    method: calendar.getFirstPropertyValue('method'),
    summary: vevent.getFirstPropertyValue('summary'),
    attendee: String(vevent.getFirstPropertyValue('attendee')).toLowerCase(),
    organizer: String(vevent.getFirstPropertyValue('organizer')),
    sequence: Number(vevent.getFirstPropertyValue('sequence')),
    status: vevent.getFirstPropertyValue('status'),
    start: (vevent.getFirstPropertyValue('dtstart') as ICAL.Time).toString(),
    zone: vevent.getFirstProperty('dtstart')?.getParameter('tzid'),
  };
}

/** The link of a message's line that starts with `label`. */
function linkIn(mail: ParsedMail, label: string): URL {
  const line = (mail.text ?? '').split('\n').find((l) => l.startsWith(label));
  if (!line) throw new Error(`no "${label}" line in:\n${mail.text}`);
  return new URL(line.slice(line.indexOf('http')));
}

const counts = async (s: TestServer, id: number) => (await s.get(`/events/${id}`, { as: null })).body.rsvp;

describeEachDatabase(
  'RSVP messages over SMTP',
  (s) => {
    let sender: MailSender;
    beforeAll(() => {
      sender = startTestSender(s, smtp.url);
    });
    afterAll(() => sender.stop());

    it('sends the invitation when seated, the waiting list and promotion, and a cancellation', async () => {
      const event = await openEvent(s, { capacity: 1 });
      // test/setup/role-users.ts gives each role's account the address <role>@example.org.
      const sub = { email: `${s.users.subscriber.login}@example.org` };
      const first = await s.post(`/events/${event.id}/rsvps`, {}, { as: 'subscriber' });
      expect(first.body.status).toBe('going');
      const going = await smtp.next(sub.email, "You're going");
      expect(going.text).toContain(`Your check-in code at the door: ${first.body.check_in_code}`);
      const request = invitation(going);
      expect(request).toMatchObject({ method: 'REQUEST', summary: event.title, zone: 'Europe/Paris' });
      expect(request.start).toBe('2043-06-10T19:00:00');
      expect(request.attendee).toBe(`mailto:${sub.email.toLowerCase()}`);
      expect(request.organizer).toMatch(/^mailto:calendar@/);

      const waiting = await s.post(
        `/events/${event.id}/rsvps`,
        { name: 'Wendy Wait', email: 'wendy@example.org' },
        { as: 'author' },
      );
      expect(waiting.body.status).toBe('waiting');
      const listed = await smtp.next('wendy@example.org', 'On the waiting list');
      expect(listed.attachments.filter((a) => a.contentType.startsWith('text/calendar'))).toEqual([]);

      const cancelled = await s.request('DELETE', `/events/${event.id}/rsvps/${first.body.id}`, { as: 'subscriber' });
      expect(cancelled.body.status).toBe('cancelled');
      const cancel = invitation(await smtp.next(sub.email, 'RSVP cancelled'));
      expect(cancel).toMatchObject({ method: 'CANCEL', status: 'CANCELLED' });
      expect(cancel.sequence).toBeGreaterThanOrEqual(request.sequence);
      const promoted = invitation(await smtp.next('wendy@example.org', 'A place is yours'));
      expect(promoted.method).toBe('REQUEST');
      // /metrics counts what was sent, and the queue is empty again.
      await sender.flush();
      const metrics = await registry.metrics();
      expect(metrics).toMatch(/^mail_messages_total\{outcome="sent"\} [1-9]/m);
      expect(metrics).toMatch(/^mail_queue_depth 0$/m);
      expect(await counts(s, event.id)).toMatchObject({ going: 1, waiting: 0 });
    });

    it('tells everyone who expects the event when it is cancelled, and only them', async () => {
      const event = await openEvent(s);
      for (const who of ['carla', 'dmitri']) {
        await s.post(`/events/${event.id}/rsvps`, { name: who, email: `${who}@example.org` }, { as: 'author' });
        await smtp.next(`${who}@example.org`, "You're going");
      }
      const gone = await s.post(
        `/events/${event.id}/rsvps`,
        { name: 'Gone', email: 'gone@example.org', answer: 'not_going' },
        { as: 'author' },
      );
      expect(gone.body.status).toBe('declined');
      const r = await s.post(`/events/${event.id}`, { event_status: 'canceled', event_status_reason: 'Storm warning' });
      expect(r.status, r.text).toBe(200);
      for (const who of ['carla', 'dmitri']) {
        const mail = await smtp.next(`${who}@example.org`, 'Cancelled:');
        expect(mail.text).toContain('Storm warning');
        expect(invitation(mail)).toMatchObject({ method: 'CANCEL', status: 'CANCELLED' });
      }
      await sender.flush();
      expect(
        smtp.received.some(
          (m) => m.to && JSON.stringify(m.to).includes('gone@example.org') && m.subject?.startsWith('Cancelled'),
        ),
      ).toBe(false);
    });

    it('confirms an RSVP without an account by its link, once, and its token opens that RSVP alone', async () => {
      const event = await openEvent(s, { anonymous: true, capacity: 10, guests_max: 2 });
      const asked = await s.post(
        `/events/${event.id}/rsvps`,
        { name: 'Ana Lima', email: 'ana.anon@example.org', guests: 1 },
        { as: null },
      );
      expect(asked.status, asked.text).toBe(202);
      expect(asked.body).toMatchObject({ event: event.id, email: 'ana.anon@example.org' });
      expect(asked.body).not.toHaveProperty('id');
      expect(await counts(s, event.id)).toMatchObject({ going: 0 });
      const mail = await smtp.next('ana.anon@example.org', 'Confirm your RSVP');
      const link = linkIn(mail, 'Confirm:');
      const rsvpId = Number(link.searchParams.get('rsvp'));
      const code = String(link.searchParams.get('code'));
      expect(code).toMatch(/^[A-Za-z0-9_-]{43}$/);
      // Organisers see it, unconfirmed and counting for nothing.
      const listed = await s.get(`/events/${event.id}/rsvps`, { as: 'author' });
      expect(listed.body.rsvps).toMatchObject([{ id: rsvpId, status: 'pending', confirmed: false }]);

      const wrong = await s.post(
        `/events/${event.id}/rsvps/${rsvpId}/confirm`,
        { code: `${code.slice(0, -1)}${code.endsWith('A') ? 'B' : 'A'}` },
        { as: null },
      );
      expect(wrong.status).toBe(403);
      expect(wrong.body.code).toBe('rest_rsvp_confirmation_invalid');
      const confirmed = await s.post(`/events/${event.id}/rsvps/${rsvpId}/confirm`, { code }, { as: null });
      expect(confirmed.status, confirmed.text).toBe(200);
      expect(confirmed.body).toMatchObject({ id: rsvpId, status: 'going', confirmed: true, guests: 1 });
      const token = confirmed.body.token as string;
      expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(await counts(s, event.id)).toMatchObject({ going: 2 });
      const again = await s.post(`/events/${event.id}/rsvps/${rsvpId}/confirm`, { code }, { as: null });
      expect(again.status).toBe(403);
      // The message that says so carries the token's link, for the owner to come back.
      const going = await smtp.next('ana.anon@example.org', "You're going");
      expect(linkIn(going, 'See or cancel').searchParams.get('token')).toBe(token);
      expect(invitation(going).method).toBe('REQUEST');

      const path = `/events/${event.id}/rsvps/${rsvpId}`;
      const withToken = { as: null, headers: { 'RSVP-Token': token } };
      expect((await s.get(path, withToken)).body).toMatchObject({ id: rsvpId, name: 'Ana Lima' });
      expect((await s.get(path, { as: null, headers: { 'RSVP-Token': `${token.slice(0, -1)}x` } })).status).toBe(404);
      // Without it, nothing: an answer to the token's request is never kept for anyone else.
      expect((await s.get(path, { as: null })).status).toBe(401);
      // Another RSVP, even of the same event, is not the token's.
      const other = await s.post(
        `/events/${event.id}/rsvps`,
        { name: 'Other', email: 'other@example.org' },
        { as: 'author' },
      );
      expect((await s.get(`/events/${event.id}/rsvps/${other.body.id}`, withToken)).status).toBe(404);
      expect((await s.get(`/events/${event.id}/rsvps`, withToken)).body.rsvps ?? []).toEqual([]);
      // Its owner changes answer and guests, not its status.
      const fewer = await s.request('PATCH', path, { ...withToken, body: { guests: 0 } });
      expect(fewer.body).toMatchObject({ guests: 0, status: 'going' });
      const checkIn = await s.request('PATCH', path, { ...withToken, body: { status: 'checked_in' } });
      expect(checkIn.status).toBe(403);
      expect(checkIn.body.code).toBe('rest_forbidden');
      const cancelled = await s.request('DELETE', path, withToken);
      expect(cancelled.body.status).toBe('cancelled');
      await smtp.next('ana.anon@example.org', 'RSVP cancelled');
    });

    it('answers the same to an address that has an RSVP, and gives its owner a new token by the link', async () => {
      const event = await openEvent(s, { anonymous: true });
      const first = await s.post(`/events/${event.id}/rsvps`, { name: 'Bea', email: 'bea@example.org' }, { as: null });
      const code = linkIn(await smtp.next('bea@example.org', 'Confirm'), 'Confirm:').searchParams.get('code');
      const rsvpId =
        first.status === 202
          ? Number((await s.get(`/events/${event.id}/rsvps`, { as: 'author' })).body.rsvps[0].id)
          : 0;
      const one = await s.post(`/events/${event.id}/rsvps/${rsvpId}/confirm`, { code }, { as: null });
      expect(one.body.status).toBe('going');
      await smtp.next('bea@example.org', "You're going");
      // Asked again from the same address: the same answer as for a new one, a new link by mail.
      const second = await s.post(
        `/events/${event.id}/rsvps`,
        { name: 'Someone', email: 'BEA@example.org' },
        { as: null },
      );
      expect(second.status).toBe(202);
      expect(Object.keys(second.body).sort()).toEqual(Object.keys(first.body).sort());
      // Sent to the address as the RSVP holds it.
      const code2 = linkIn(await smtp.next('bea@example.org', 'Confirm'), 'Confirm:').searchParams.get('code');
      const two = await s.post(`/events/${event.id}/rsvps/${rsvpId}/confirm`, { code: code2 }, { as: null });
      expect(two.body).toMatchObject({ id: rsvpId, status: 'going', name: 'Bea' });
      // The old token no longer opens it; the new one does.
      const path = `/events/${event.id}/rsvps/${rsvpId}`;
      expect((await s.get(path, { as: null, headers: { 'RSVP-Token': one.body.token } })).status).toBe(404);
      expect((await s.get(path, { as: null, headers: { 'RSVP-Token': two.body.token } })).status).toBe(200);
      expect(await counts(s, event.id)).toMatchObject({ going: 1 });
    });

    it('confirms and cancels through the RSVP page, whose link changes nothing until its button is pressed', async () => {
      const event = await openEvent(s, { anonymous: true });
      await s.post(`/events/${event.id}/rsvps`, { name: 'Page <b>User</b>', email: 'page@example.org' }, { as: null });
      const link = linkIn(await smtp.next('page@example.org', 'Confirm'), 'Confirm:');
      expect(link.origin).toBe(s.origin);
      const opened = await fetch(link);
      expect(opened.status, await opened.clone().text()).toBe(200);
      expect(opened.headers.get('cache-control')).toBe('no-store');
      expect(opened.headers.get('referrer-policy')).toBe('no-referrer');
      const html = await opened.text();
      expect(html).toContain('<form method="post" action="/rsvp/">');
      await fetch(link); // a mail filter's second look
      expect(await counts(s, event.id)).toMatchObject({ going: 0 });

      const form = new URLSearchParams({ ...Object.fromEntries(link.searchParams), action: 'confirm' });
      const done = await fetch(`${s.origin}/rsvp/`, { method: 'POST', body: form });
      expect(done.status).toBe(200);
      const page = await done.text();
      expect(page).toContain('You are going');
      expect(await counts(s, event.id)).toMatchObject({ going: 1 });
      const manage = new URL(/href="([^"]+token=[^"]+)"/.exec(page)?.[1].replaceAll('&amp;', '&') ?? '');
      expect((await fetch(manage)).status).toBe(200);
      const cancel = new URLSearchParams({ ...Object.fromEntries(manage.searchParams), action: 'cancel' });
      const after = await fetch(`${s.origin}/rsvp/`, { method: 'POST', body: cancel });
      expect(await after.text()).toContain('Your RSVP is cancelled.');
      expect(await counts(s, event.id)).toMatchObject({ going: 0 });
      // The code was used: the link now says so.
      const used = await fetch(`${s.origin}/rsvp/`, { method: 'POST', body: form });
      expect(used.status).toBe(403);
      expect((await fetch(`${s.origin}/rsvp/?event=${event.id}&rsvp=1`)).status).toBe(404);
    });

    it('sends one address so many confirmation messages a day', async () => {
      const event = await openEvent(s, { anonymous: true });
      const ask = () =>
        s.post(`/events/${event.id}/rsvps`, { name: 'Flood', email: 'flood@example.org' }, { as: null });
      for (let i = 0; i < 3; i++) expect((await ask()).status).toBe(202);
      const refused = await ask();
      expect(refused.status).toBe(429);
      expect(refused.body.data).toMatchObject({ quota: 'confirmations', limit: 3 });
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    });
  },
  { env: { SMTP_URL: smtp.url, RSVP_CONFIRMATIONS_PER_DAY: '3' } },
);

describeEachDatabase('RSVP without an account, without SMTP_URL', (s) => {
  it('is refused, saying why', async () => {
    const event = await openEvent(s, { anonymous: true });
    const r = await s.post(`/events/${event.id}/rsvps`, { name: 'No Mail', email: 'nomail@example.org' }, { as: null });
    expect(r.status).toBe(403);
    expect(r.body.code).toBe('rest_rsvp_needs_confirmation');
  });

  it('queues no message that no one would send', async () => {
    const event = await openEvent(s, { capacity: 1 });
    const going = await s.post(`/events/${event.id}/rsvps`, {}, { as: 'subscriber' });
    await s.post(`/events/${event.id}/rsvps`, { name: 'Next', email: 'next@example.org' }, { as: 'author' });
    await s.request('DELETE', `/events/${event.id}/rsvps/${going.body.id}`, { as: 'subscriber' });
    expect(await s.db.prisma.mailOutbox.count({ where: { eventId: event.id } })).toBe(0);
  });
});
