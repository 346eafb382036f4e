// Creating an event, in one transaction with everything it links to (new venues, organizers and
// terms included), so that a failed create leaves nothing behind.
import type { components } from '../../../generated/api.js';
import { type Event, Prisma as Prisma } from '../../../generated/prisma/client.js';
import { assertMay } from '../../auth/capabilities.js';
import { effectiveAuthor, effectiveStatus } from '../../auth/permissions.js';
import type { Tx } from '../../db/client.js';
import { type Driver, driverOf, statementsOf, transactionDriverOf } from '../../db/driver.js';
import {
  CATEGORY,
  type EventRecord,
  ORGANIZER,
  TAG,
  type Taxonomy,
  VENUE,
  type VenueOrOrganizerKind,
} from '../../domain/records.js';
import { firstFreeSlug, slugify } from '../../lib/slug.js';
import { insertEventAndLinks, readCreateChecks } from '../../queries/event-storage.js';
import type { ServiceContext } from '../context.js';
import {
  assertTermsFound,
  assertVenuesOrOrganizersFound,
  type LinksWrite,
  termIdsForWrite,
  termIdsOnly,
  type TermsWrite,
  venueOrOrganizerIdsForWrite,
  venueOrOrganizerIdsOnly,
} from '../event-links.js';
import { publicationDate } from '../posts.js';
import { assertSeriesRoom, chargeCreate, chargesCreate } from '../quotas.js';
import { inTransaction, retryOnConflict } from '../retry.js';
import { syncSeries } from '../series/sync.js';
import { recurrenceFor } from '../series/lines.js';
import { columns, times } from './input.js';
import { readBack } from './read.js';
import { imageColumns } from '../media.js';

/**
 * Creates an event. A create that needs nothing of Prisma (no series to expand, links by ID only)
 * runs on the driver: one read for its checks, then the event and its links in one statement, which
 * is atomic on its own, so no transaction is needed (docs/performance.md); with a create quota to
 * charge as well, both writes in a transaction on the driver. Any other create runs in Prisma's. All
 * run insertEvent below: the same checks, in the same order, and the same statements.
 */
export async function createEvent(ctx: ServiceContext, input: NewEvent): Promise<EventRecord> {
  const driver = driverOf(ctx.db);
  const transaction = transactionDriverOf(ctx.db);
  const links = linksById(input);
  const id =
    driver && transaction && !input.recurrence?.length && Object.values(links).every(byIdOnly)
      ? await retryOnConflict(() =>
          chargesCreate(ctx)
            ? transaction((run) => insertEvent({ run }, ctx, input))
            : insertEvent({ run: driver }, ctx, input),
        )
      : await inTransaction(ctx, (tx) => insertEvent(tx, ctx, input));
  return readBack(ctx.db, id);
}

type NewEvent = components['schemas']['EventInput'];

/**
 * Where a create writes: a Prisma transaction, or only the statements of the driver's (in its
 * transaction, or on its own when the create writes with one statement: see createEvent).
 */
type CreateIn = Tx | { run: Driver };

/**
 * The IDs a create links to, for each link it sends that names IDs only; undefined for one that
 * names something to find or create by name. A link whose IDs are invalid keeps its error, thrown
 * when insertEvent comes to that link, so that errors come in the order of the fields.
 */
function linksById(input: NewEvent) {
  return {
    venues: attempt(() => (input.venue === undefined ? [] : venueOrOrganizerIdsOnly(VENUE, input.venue))),
    organizers: attempt(() =>
      input.organizer === undefined ? [] : venueOrOrganizerIdsOnly(ORGANIZER, input.organizer),
    ),
    categories: attempt(() =>
      input.categories === undefined ? [] : termIdsOnly(CATEGORY, 'categories', input.categories),
    ),
    tags: attempt(() => (input.tags === undefined ? [] : termIdsOnly(TAG, 'tags', input.tags))),
  };
}

type Attempt<T> = { value: T } | { error: unknown };

const attempt = <T>(work: () => T): Attempt<T> => {
  try {
    return { value: work() };
  } catch (error) {
    return { error };
  }
};

const take = <T>(result: Attempt<T>): T => {
  if ('error' in result) throw result.error;
  return result.value;
};

const byIdOnly = (result: Attempt<number[] | undefined>) => !('value' in result) || result.value !== undefined;

/** The IDs to read in the create's one read: those of links named by ID only. */
const idsToRead = (result: Attempt<number[] | undefined>) => ('value' in result ? (result.value ?? []) : []);

/**
 * Creates the event in `on` and answers its ID (the importer calls it in its own transaction). One
 * read checks every link named by ID, the author and the slugs taken; links named otherwise are
 * found or created through Prisma (services/event-links.ts); then the row, its links, a series'
 * occurrences and the account's create count.
 */
export async function insertEvent(on: CreateIn, ctx: ServiceContext, input: NewEvent): Promise<number> {
  const { caller, siteZone } = ctx;
  assertMay(caller, 'create events');
  const run = 'run' in on ? on.run : statementsOf(on);
  const title = input.title.trim();
  const publishedAt = publicationDate(input, siteZone);
  const when = times(input, undefined, siteZone);
  const { cost, ...fields } = columns(input, when);
  // Before the author and the links: an image that is not there is refused first.
  const image = await imageColumns(input.image, run, caller);
  const recurrence = recurrenceFor(input, undefined, when) ?? [];
  const links = linksById(input);
  const slugBase = (input.slug !== undefined ? slugify(input.slug) : '') || slugify(title) || 'event';
  const found = await readCreateChecks(run, {
    venues: idsToRead(links.venues),
    organizers: idsToRead(links.organizers),
    categories: idsToRead(links.categories),
    tags: idsToRead(links.tags),
    author: input.author,
    slug: slugBase,
  });
  const status = effectiveStatus(caller, input.status);
  const authorId = await effectiveAuthor(caller, input.author, undefined, () => Promise.resolve(found.authorExists));
  const prisma = () => {
    if ('run' in on) throw new Error('a create that names links to find or create runs in a Prisma transaction');
    return on;
  };
  const linked = async (
    kind: VenueOrOrganizerKind,
    value: LinksWrite | undefined,
    byId: Attempt<number[] | undefined>,
  ) => {
    if (value === undefined) return [];
    const ids = take(byId);
    if (ids === undefined) return venueOrOrganizerIdsForWrite(prisma(), ctx, kind, value);
    assertVenuesOrOrganizersFound(caller, kind, ids, kind === VENUE ? found.venues : found.organizers);
    return ids;
  };
  const venues = await linked(VENUE, input.venue, links.venues);
  const organizers = await linked(ORGANIZER, input.organizer, links.organizers);
  const terms = async (
    taxonomy: Taxonomy,
    field: 'categories' | 'tags',
    value: TermsWrite | undefined,
    byId: Attempt<number[] | undefined>,
  ) => {
    if (value === undefined) return [];
    const ids = take(byId);
    if (ids === undefined) return termIdsForWrite(prisma(), ctx, taxonomy, field, value);
    assertTermsFound(taxonomy, field, ids, found[field]);
    return ids;
  };
  const categories = await terms(CATEGORY, 'categories', input.categories, links.categories);
  const tags = await terms(TAG, 'tags', input.tags, links.tags);
  const now = new Date();
  const id = await insertEventAndLinks(
    run,
    {
      ...fields,
      ...image,
      cost: cost === Prisma.DbNull ? null : (cost as Event['cost']),
      ...when,
      recurrence,
      title,
      slug: firstFreeSlug(slugBase, found.slugsTaken),
      status,
      authorId,
      publishedAt: publishedAt ?? now,
      modifiedAt: now,
    },
    { venues, organizers, terms: [...categories, ...tags] },
  );
  if (recurrence.length) {
    await assertSeriesRoom(prisma(), ctx, authorId, id);
    await syncSeries(prisma(), ctx, id, { rebuild: true, links: false });
  }
  await chargeCreate(run, ctx);
  return id;
}
