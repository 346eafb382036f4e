// Every door holds what the REST API holds: for each role (and anonymous callers), what it may see,
// change, delete and create through batch, CalDAV and the importer is compared with what the REST
// API lets the same caller do with the same items. A door that allows more than the API fails; so
// does one that shows or changes less, where the door can do what the API does (reads, changes,
// deletions), so that a door refusing everything does not pass for a safe one.
import { expect, it } from 'vitest';
import type { Role } from '../../src/auth/roles.js';
import { FULL_RUN } from '../setup/budget.js';
import { describeEachDatabase } from '../setup/each-database.js';
import { importCalendarAs, vcalendar } from '../setup/importing.js';
import type { TestServer } from '../setup/server.js';

type Who = Role | null;
const CALLERS: Who[] = [null, 'subscriber', 'contributor', 'author', 'editor'];
/**
 * Who reads and changes through every door: everyone in a full run (the slow part runs this file
 * again, test/setup/budget.ts); in the fast part the callers at the edges of the rules, as
 * test/http/permissions.test.ts does: the rules are the same code for every role.
 */
const READERS: Who[] = FULL_RUN ? CALLERS : [null, 'contributor', 'editor'];
const NS = '/calendar/events/v1';
const ALL = '/caldav/calendars/events/';

/** The events a caller meets: others' published, draft and private ones, a contributor's and an author's own. */
const FIXTURES: { name: string; owner: Role; status: string }[] = [
  { name: 'published', owner: 'administrator', status: 'publish' },
  { name: 'draft', owner: 'administrator', status: 'draft' },
  { name: 'private', owner: 'administrator', status: 'private' },
  { name: "a contributor's draft", owner: 'contributor', status: 'draft' },
  { name: "an author's published", owner: 'author', status: 'publish' },
];

let n = 0;
const unique = (what: string) => `${what} ${process.pid}-${++n}`;

const basic = (s: TestServer, who: Who): Record<string, string> => {
  if (!who) return {};
  const user = s.users[who];
  return { authorization: `Basic ${Buffer.from(`${user.login}:${user.appPassword}`).toString('base64')}` };
};

async function dav(s: TestServer, who: Who, method: string, path: string, body?: string) {
  const headers = basic(s, who);
  if (body !== undefined)
    headers['content-type'] = method === 'PUT' ? 'text/calendar; charset=utf-8' : 'application/xml; charset=utf-8';
  if (method === 'REPORT') headers.depth = '1';
  const r = await fetch(`${s.origin}${path}`, { method, headers, body });
  return { status: r.status, text: await r.text() };
}

const ok = (status: number) => status >= 200 && status < 300;

describeEachDatabase('every door against the REST API', (s) => {
  /** A fresh copy of the fixtures: each door's changes and deletions meet the same items. */
  async function fixtures(): Promise<{ id: number; name: string }[]> {
    return Promise.all(
      FIXTURES.map(async (f) => {
        const r = await s.post(
          '/events',
          {
            title: unique(`Door ${f.name}`),
            status: f.status,
            start_date: '2042-06-01 10:00',
            end_date: '2042-06-01 11:00',
          },
          { as: f.owner },
        );
        expect(r.status, r.text).toBe(201);
        return { id: r.body.id as number, name: f.name };
      }),
    );
  }

  const batch = async (who: Who, method: string, path: string, body?: object) => {
    const r = await s.post(
      '/batch/v1',
      { requests: [{ method, path: `${NS}${path}`, body }] },
      { fromRoot: true, as: who },
    );
    return (r.body.responses?.[0]?.status as number | undefined) ?? r.status;
  };

  /** The event's text as CalDAV serves it to its editors, with another SUMMARY. */
  const retitled = async (id: number, title: string) => {
    const text = (await dav(s, 'administrator', 'GET', `${ALL}${id}.ics`)).text;
    return text.replace(/^SUMMARY:.*$/m, `SUMMARY:${title}`);
  };

  const statusOf = async (title: string) =>
    (await s.db.prisma.event.findFirst({ where: { title }, select: { status: true } }))?.status;
  const categoryMade = async (name: string) => (await s.db.prisma.term.count({ where: { name } })) > 0;

  const roleName = (who: Who) => who ?? 'anonymous';

  it.each(READERS.map((who) => [roleName(who), who] as const))(
    '%s sees through every door exactly what the API shows',
    async (_, who) => {
      const events = await fixtures();
      const listed = await dav(
        s,
        who,
        'REPORT',
        ALL,
        `<c:calendar-query xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav"><d:prop><d:getetag/></d:prop><c:filter><c:comp-filter name="VCALENDAR"><c:comp-filter name="VEVENT"/></c:comp-filter></c:filter></c:calendar-query>`,
      );
      const differ: string[] = [];
      for (const e of events) {
        const rest = ok((await s.get(`/events/${e.id}`, { as: who })).status);
        const ics = ok((await s.get(`/events/${e.id}.ics`, { as: who, noRedirect: true })).status);
        const davGet = ok((await dav(s, who, 'GET', `${ALL}${e.id}.ics`)).status);
        const davListed = listed.text.includes(`${ALL}${e.id}.ics<`);
        for (const [door, allowed] of [
          ['the iCalendar export', ics],
          ['a CalDAV GET', davGet],
          ['a CalDAV calendar-query', davListed],
        ] as const)
          if (allowed !== rest) differ.push(`${door} ${allowed ? 'shows' : 'hides'} ${e.name}`);
      }
      expect(differ).toEqual([]);
    },
  );

  it.each(READERS.map((who) => [roleName(who), who] as const))(
    '%s changes and deletes through every door exactly what the API lets it',
    async (_, who) => {
      const differ: string[] = [];
      const compare = (door: string, verb: string, done: boolean, allowed: boolean, name: string) => {
        if (done !== allowed) differ.push(`${door} ${done ? '' : 'does not '}${verb} ${name}`);
      };
      const [rest, viaBatch, viaDav] = [await fixtures(), await fixtures(), await fixtures()];
      for (const [i, f] of FIXTURES.entries()) {
        const titles = { api: unique('Changed'), batch: unique('Batched'), dav: unique('Put') };
        const allowed = ok(
          (await s.request('PATCH', `/events/${rest[i].id}`, { as: who, body: { title: titles.api } })).status,
        );
        const batched = ok(await batch(who, 'PATCH', `/events/${viaBatch[i].id}`, { title: titles.batch }));
        compare('batch', 'changes', batched, allowed, f.name);
        const put = await dav(s, who, 'PUT', `${ALL}${viaDav[i].id}.ics`, await retitled(viaDav[i].id, titles.dav));
        compare('CalDAV', 'changes', ok(put.status), allowed, f.name);
        // Whatever a door changed, it left the status where the API's change left it.
        const status = await statusOf(titles.api);
        for (const door of ['batch', 'dav'] as const) {
          const after = await statusOf(titles[door]);
          if (after !== undefined && after !== status)
            differ.push(`${door} left ${f.name} ${after}, the API ${status}`);
        }
      }
      const [restGone, batchGone, davGone] = [await fixtures(), await fixtures(), await fixtures()];
      for (const [i, f] of FIXTURES.entries()) {
        const allowed = ok((await s.request('DELETE', `/events/${restGone[i].id}`, { as: who })).status);
        compare('batch', 'deletes', ok(await batch(who, 'DELETE', `/events/${batchGone[i].id}`)), allowed, f.name);
        const deleted = ok((await dav(s, who, 'DELETE', `${ALL}${davGone[i].id}.ics`)).status);
        compare('CalDAV', 'deletes', deleted, allowed, f.name);
      }
      expect(differ).toEqual([]);
    },
  );

  it.each(CALLERS.map((who) => [roleName(who), who] as const))(
    '%s creates through no door what the API refuses',
    async (_, who) => {
      const more: string[] = [];
      const event = (title: string, category: string) => ({
        title,
        status: 'publish',
        start_date: '2042-07-01 10:00',
        end_date: '2042-07-01 11:00',
        categories: [category],
      });
      // The API: an event asked to be published, naming a category that does not exist yet.
      const [restTitle, restCategory] = [unique('Made'), unique('Made category')];
      const made = await s.post('/events', event(restTitle, restCategory), { as: who });
      const restStatus = await statusOf(restTitle);
      const restMadeCategory = await categoryMade(restCategory);
      // Without the category, whether it may create a (published) event at all.
      const plainTitle = unique('Made plain');
      const plain = await s.post('/events', { ...event(plainTitle, ''), categories: [] }, { as: who });
      const plainStatus = ok(plain.status) ? await statusOf(plainTitle) : undefined;
      expect(made.status === 201 || !restMadeCategory).toBe(true);

      const doors: [string, (title: string, category: string) => Promise<unknown>][] = [
        ['batch', (title, category) => batch(who, 'POST', '/events', event(title, category))],
        [
          'CalDAV',
          (title, category) =>
            dav(
              s,
              who,
              'PUT',
              `${ALL}${unique('door').replace(/\W/g, '-')}.ics`,
              vcalendar(unique('door-uid'), [`SUMMARY:${title}`, `CATEGORIES:${category}`]),
            ),
        ],
      ];
      if (who) {
        doors.push([
          'the importer',
          (title, category) =>
            importCalendarAs(s, who, vcalendar(unique('import-uid'), [`SUMMARY:${title}`, `CATEGORIES:${category}`])),
        ]);
      }
      for (const [door, create] of doors) {
        const [title, category] = [unique(`Made by ${door}`), unique(`Category by ${door}`)];
        await create(title, category);
        const status = await statusOf(title);
        if (status !== undefined && plainStatus === undefined) more.push(`${door} creates an event`);
        if (status === 'publish' && plainStatus !== 'publish' && restStatus !== 'publish')
          more.push(`${door} publishes an event`);
        if ((await categoryMade(category)) && !restMadeCategory) more.push(`${door} creates a category`);
      }
      expect(more).toEqual([]);
    },
  );
});
