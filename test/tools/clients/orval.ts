// orval's fetch client (`client: 'fetch'`, with orval-fetch.ts as its custom fetch for the base URL):
// list, create with an application password (Bearer, as a request option), a 404 and a 400. Answers
// are `{data, status}` unions, narrowed by status.
import { EVENT, type IsString, type IsUnknown, MISSING_ID, MONTH, ORGANIZER, plain, report, target } from './checks.js';
import {
  createEvent,
  createOrganizer,
  type Event,
  type EventInput,
  getEvent,
  listEvents,
  type Organizer,
  type OrganizerInput,
} from './generated/api.js';

// Fields the document means as strings come out as strings, in answers and in request bodies (a
// field that came out unknown or any fails to compile here, named).
export const stringFields: {
  eventWebsite: IsString<Event['website']>;
  eventUrl: IsString<Event['url']>;
  organizerEmail: IsString<Organizer['email']>;
  organizerWebsite: IsString<Organizer['website']>;
  eventInputWebsite: IsString<EventInput['website']>;
  organizerInputEmail: IsString<OrganizerInput['email']>;
} = {
  eventWebsite: true,
  eventUrl: true,
  organizerEmail: true,
  organizerWebsite: true,
  eventInputWebsite: true,
  organizerInputEmail: true,
};

const { appPassword } = target();
const auth = { headers: { Authorization: `Bearer ${appPassword}` } };

const organizerAnswer = await createOrganizer(ORGANIZER, undefined, auth);
if (organizerAnswer.status !== 201) throw new Error(`create organizer: ${organizerAnswer.status}`);
const organizer = plain(organizerAnswer.data);
const email: string | undefined | null = organizer.email;
const emailTyped: IsUnknown<typeof organizer.email> = false;

const createdAnswer = await createEvent({ ...EVENT, organizer: [organizer.id] }, undefined, auth);
if (createdAnswer.status !== 201) throw new Error(`create event: ${createdAnswer.status}`);
const event = plain(createdAnswer.data);
const website: string | undefined | null = event.website;
const websiteTyped: IsUnknown<typeof event.website> = false;
const url: string | undefined | null = event.url;
const urlTyped: IsUnknown<typeof event.url> = false;

const listAnswer = await listEvents({ ...MONTH, per_page: 50 });
if (listAnswer.status !== 200) throw new Error(`list: ${listAnswer.status}`);
const list = plain(listAnswer.data);

const readAnswer = await getEvent(event.id);
if (readAnswer.status !== 200) throw new Error(`read: ${readAnswer.status}`);
const read = plain(readAnswer.data);

const missing = await getEvent(MISSING_ID);
if (missing.status !== 404) throw new Error(`missing: ${missing.status}`);
const bad = await listEvents({ per_page: 0 });
if (bad.status !== 400) throw new Error(`per_page=0: ${bad.status}`);

report({
  organizer: { status: organizerAnswer.status, id: organizer.id, email: email ?? '' },
  created: {
    status: createdAnswer.status,
    id: event.id,
    website: website ?? '',
    url: url ?? '',
    organizerEmails: event.organizer.map((o) => o.email ?? ''),
  },
  listed: { status: listAnswer.status, ids: list.events.map((e) => e.id), total: list.total },
  read: { status: readAnswer.status, title: read.title, website: read.website ?? '' },
  notFound: { status: missing.status, code: missing.data.code },
  badParam: { status: bad.status, code: bad.data.code, params: Object.keys(bad.data.data.params ?? {}) },
});
export const typed = [emailTyped, websiteTyped, urlTyped];
