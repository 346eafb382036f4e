// openapi-typescript-codegen's fetch client (`--client fetch --useOptions`): list, create with a login
// and its application password (HTTP Basic, through OpenAPI.USERNAME and PASSWORD), a 404 and a 400.
// A failed call throws an ApiError with the status and the parsed error body.
import { EVENT, type IsString, type IsUnknown, MISSING_ID, MONTH, ORGANIZER, plain, report, target } from './checks.js';
import {
  ApiError,
  type Event,
  type EventInput,
  EventsService,
  OpenAPI,
  type Organizer,
  type OrganizerInput,
  OrganizersService,
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
OpenAPI.BASE = baseUrl;
OpenAPI.USERNAME = login;
OpenAPI.PASSWORD = appPassword;

/** The status and error body of a call that failed. */
async function failure(call: Promise<unknown>): Promise<{ status: number; code: string; params: string[] }> {
  try {
    await call;
  } catch (thrown) {
    if (!(thrown instanceof ApiError)) throw thrown;
    const body = thrown.body as { code: string; data: { params?: Record<string, string> } };
    return { status: thrown.status, code: body.code, params: Object.keys(body.data.params ?? {}) };
  }
  throw new Error('the call succeeded');
}

const organizer = plain(await OrganizersService.createOrganizer({ requestBody: ORGANIZER }));
const email: string | undefined | null = organizer.email;
const emailTyped: IsUnknown<typeof organizer.email> = false;

const event = plain(await EventsService.createEvent({ requestBody: { ...EVENT, organizer: [organizer.id] } }));
const website: string | undefined | null = event.website;
const websiteTyped: IsUnknown<typeof event.website> = false;
const url: string | undefined | null = event.url;
const urlTyped: IsUnknown<typeof event.url> = false;

const list = plain(
  await EventsService.listEvents({ startDate: MONTH.start_date, endDate: MONTH.end_date, perPage: 50 }),
);
const read = plain(await EventsService.getEvent({ id: event.id }));
const missing = await failure(EventsService.getEvent({ id: MISSING_ID }));
const bad = await failure(EventsService.listEvents({ perPage: 0 }));

// This client gives no status for answers that succeed (null).
report({
  organizer: { status: null, id: organizer.id, email: email ?? '' },
  created: {
    status: null,
    id: event.id,
    website: website ?? '',
    url: url ?? '',
    organizerEmails: event.organizer.map((o) => o.email ?? ''),
  },
  listed: { status: null, ids: list.events.map((e) => e.id), total: list.total },
  read: { status: null, title: read.title, website: read.website ?? '' },
  notFound: { status: missing.status, code: missing.code },
  badParam: bad,
});
export const typed = [emailTyped, websiteTyped, urlTyped];
