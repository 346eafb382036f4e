// @hey-api/openapi-ts with its fetch client (@hey-api/client-fetch, bundled into the output): list,
// create with a login and its application password (HTTP Basic, through the client's `auth`), a 404
// and a 400.
import { EVENT, type IsString, type IsUnknown, MISSING_ID, MONTH, ORGANIZER, plain, report, target } from './checks.js';
import { client } from './generated/client.gen.js';
import {
  createEvent,
  createOrganizer,
  type Event,
  type EventInput,
  getEvent,
  listEvents,
  type Organizer,
  type OrganizerInput,
} from './generated/index.js';

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

const { baseUrl, login, appPassword } = target();
client.setConfig({
  baseUrl,
  // Called for each security scheme an operation names; HTTP Basic takes `login:password`.
  auth: (auth) => (auth.scheme === 'basic' ? `${login}:${appPassword}` : undefined),
});

const organizerAnswer = await createOrganizer({ body: ORGANIZER });
if (!organizerAnswer.data) throw new Error(`create organizer: ${organizerAnswer.response.status}`);
const organizer = plain(organizerAnswer.data);
const email: string | undefined | null = organizer.email;
const emailTyped: IsUnknown<typeof organizer.email> = false;

const createdAnswer = await createEvent({ body: { ...EVENT, organizer: [organizer.id] } });
if (!createdAnswer.data) throw new Error(`create event: ${createdAnswer.response.status}`);
const event = plain(createdAnswer.data);
const website: string | undefined | null = event.website;
const websiteTyped: IsUnknown<typeof event.website> = false;
const url: string | undefined | null = event.url;
const urlTyped: IsUnknown<typeof event.url> = false;

const listAnswer = await listEvents({ query: { ...MONTH, per_page: 50 } });
if (!listAnswer.data) throw new Error(`list: ${listAnswer.response.status}`);
const list = plain(listAnswer.data);

const readAnswer = await getEvent({ path: { id: event.id } });
if (!readAnswer.data) throw new Error(`read: ${readAnswer.response.status}`);
const read = plain(readAnswer.data);

const missing = await getEvent({ path: { id: MISSING_ID } });
const bad = await listEvents({ query: { per_page: 0 } });

report({
  organizer: { status: organizerAnswer.response.status, id: organizer.id, email: email ?? '' },
  created: {
    status: createdAnswer.response.status,
    id: event.id,
    website: website ?? '',
    url: url ?? '',
    organizerEmails: event.organizer.map((o) => o.email ?? ''),
  },
  listed: { status: listAnswer.response.status, ids: list.events.map((e) => e.id), total: list.total },
  read: { status: readAnswer.response.status, title: read.title, website: read.website ?? '' },
  notFound: { status: missing.response.status, code: missing.error?.code ?? '' },
  badParam: {
    status: bad.response.status,
    code: bad.error?.code ?? '',
    params: Object.keys(bad.error?.data.params ?? {}),
  },
});
export const typed = [emailTyped, websiteTyped, urlTyped];
