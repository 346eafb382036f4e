// swagger-typescript-api's fetch client (its default HTTP client): list, create with an application
// password (Bearer, through the client's securityWorker), a 404 and a 400. A failed call throws the
// response, whose `error` is the parsed error body.
import { EVENT, type IsString, type IsUnknown, MISSING_ID, MONTH, ORGANIZER, plain, report, target } from './checks.js';
import {
  Api,
  type RestError as ServiceError,
  type Event,
  type EventInput,
  type HttpResponse,
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

const { baseUrl, appPassword } = target();
const api = new Api<string>({
  baseUrl,
  securityWorker: (token) => (token ? { headers: { Authorization: `Bearer ${token}` } } : {}),
});
api.setSecurityData(appPassword);

/** The status and error body of a call that failed (the client throws the response). */
async function failure(call: Promise<unknown>): Promise<HttpResponse<unknown, ServiceError>> {
  try {
    await call;
  } catch (thrown) {
    return thrown as HttpResponse<unknown, ServiceError>;
  }
  throw new Error('the call succeeded');
}

const organizerAnswer = await api.organizers.createOrganizer(ORGANIZER);
const organizer = plain(organizerAnswer.data);
const email: string | undefined | null = organizer.email;
const emailTyped: IsUnknown<typeof organizer.email> = false;

const createdAnswer = await api.events.createEvent({ ...EVENT, organizer: [organizer.id] });
const event = plain(createdAnswer.data);
const website: string | undefined | null = event.website;
const websiteTyped: IsUnknown<typeof event.website> = false;
const url: string | undefined | null = event.url;
const urlTyped: IsUnknown<typeof event.url> = false;

const listAnswer = await api.events.listEvents({ ...MONTH, per_page: 50 });
const list = plain(listAnswer.data);

const readAnswer = await api.events.getEvent(event.id);
const read = plain(readAnswer.data);

const missing = await failure(api.events.getEvent(MISSING_ID));
const bad = await failure(api.events.listEvents({ per_page: 0 }));

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
  notFound: { status: missing.status, code: missing.error.code },
  badParam: { status: bad.status, code: bad.error.code, params: Object.keys(bad.error.data.params ?? {}) },
});
export const typed = [emailTyped, websiteTyped, urlTyped];
