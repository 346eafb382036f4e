// openapi-typescript's types with openapi-fetch, as the README shows (`npx openapi-typescript .../doc
// -o ...`): list, create with an application password (Bearer), a 404 and a 400.
import createClient from 'openapi-fetch';
import { EVENT, type IsString, type IsUnknown, MISSING_ID, MONTH, ORGANIZER, plain, report, target } from './checks.js';
import type { components, paths } from './generated/api.js';

type Schemas = components['schemas'];

// Fields the document means as strings come out as strings, in answers and in request bodies (a
// field that came out unknown or any fails to compile here, named).
export const stringFields: {
  eventWebsite: IsString<Schemas['Event']['website']>;
  eventUrl: IsString<Schemas['Event']['url']>;
  organizerEmail: IsString<Schemas['Organizer']['email']>;
  organizerWebsite: IsString<Schemas['Organizer']['website']>;
  eventInputWebsite: IsString<Schemas['EventInput']['website']>;
  organizerInputEmail: IsString<Schemas['OrganizerInput']['email']>;
} = {
  eventWebsite: true,
  eventUrl: true,
  organizerEmail: true,
  organizerWebsite: true,
  eventInputWebsite: true,
  organizerInputEmail: true,
};

const { baseUrl, appPassword } = target();
const client = createClient<paths>({ baseUrl, headers: { Authorization: `Bearer ${appPassword}` } });

const organizerAnswer = await client.POST('/organizers', { body: ORGANIZER });
if (!organizerAnswer.data) throw new Error(`create organizer: ${organizerAnswer.response.status}`);
const organizer = plain(organizerAnswer.data);
const email: string | undefined | null = organizer.email;
const emailTyped: IsUnknown<typeof organizer.email> = false;

const createdAnswer = await client.POST('/events', { body: { ...EVENT, organizer: [organizer.id] } });
if (!createdAnswer.data) throw new Error(`create event: ${createdAnswer.response.status}`);
const event = plain(createdAnswer.data);
const website: string | undefined | null = event.website;
const websiteTyped: IsUnknown<typeof event.website> = false;
const url: string | undefined | null = event.url;
const urlTyped: IsUnknown<typeof event.url> = false;

const listAnswer = await client.GET('/events', { params: { query: { ...MONTH, per_page: 50 } } });
if (!listAnswer.data) throw new Error(`list: ${listAnswer.response.status}`);
const list = plain(listAnswer.data);

const readAnswer = await client.GET('/events/{id}', { params: { path: { id: event.id } } });
if (!readAnswer.data) throw new Error(`read: ${readAnswer.response.status}`);
const read = plain(readAnswer.data);

const missing = await client.GET('/events/{id}', { params: { path: { id: MISSING_ID } } });
const bad = await client.GET('/events', { params: { query: { per_page: 0 } } });

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
