// Creating an event, in one transaction with everything it links to (new venues, organizers and
// terms included), so that a failed create leaves nothing behind.
import type { components } from '../../../generated/api.js';
import { Prisma as PrismaNS } from '../../../generated/prisma/client.js';
import { effectiveAuthor, effectiveStatus } from '../../auth/permissions.js';
import type { Tx } from '../../db/client.js';
import { CATEGORY, type EventRecord, ORGANIZER, TAG, VENUE } from '../../domain/records.js';
import { likeEscaped } from '../../lib/like.js';
import type { ServiceContext } from '../context.js';
import {
  assertTermsFound,
  assertVenuesOrOrganizersFound,
  termIdsOnly,
  venueOrOrganizerIdsOnly,
} from '../event-links.js';
import { transactionDriverOf } from '../../db/driver.js';
import type { PostStatus } from '../../domain/posts.js';
import { firstFreeSlug, slugify } from '../../lib/slug.js';
import { freeSlug, publicationDate, userExists } from '../posts.js';
import { inTransaction, retryOnConflict } from '../retry.js';
import { assertSeriesRoom, chargeCreate, chargeCreateIn } from '../quotas.js';
import { syncSeries } from '../series.js';
import { columns, times, recurrenceFor } from './input.js';
import { readBack } from './read.js';
import { writeLinks, takenSlugs } from './storage.js';

export async function createEvent(
  ctx: ServiceContext,
  input: components['schemas']['EventInput'],
): Promise<EventRecord> {
  const plain = plainCreate(ctx, input);
  const id = plain ? await retryOnConflict(plain) : await inTransaction(ctx, (tx) => insertEvent(tx, ctx, input));
  return readBack(ctx.db, id);
}

const attempt = <T>(work: () => T): { value: T } | { error: unknown } => {
  try {
    return { value: work() };
  } catch (error) {
    return { error };
  }
};
const take = <T>(result: { value: T } | { error: unknown }): T => {
  if ('error' in result) throw result.error;
  return result.value;
};

/**
 * The create of the common case, past Prisma: an event that is no series and names its venues,
 * organizers and terms by ID only. The same checks, answers and errors (in the same order) as
 * insertEvent, in one transaction of five statements on the driver (BEGIN, one read for every
 * check and the slugs taken, the event, its links, COMMIT) instead of a dozen through Prisma's
 * query compiler. Undefined for any other create, or a client without a driver of its own.
 */
function plainCreate(
  ctx: ServiceContext,
  input: components['schemas']['EventInput'],
): (() => Promise<number>) | undefined {
  const transaction = transactionDriverOf(ctx.db);
  if (!transaction || input.recurrence?.length) return undefined;
  const venues = attempt(() => (input.venue === undefined ? [] : venueOrOrganizerIdsOnly(VENUE, input.venue)));
  const organizers = attempt(() =>
    input.organizer === undefined ? [] : venueOrOrganizerIdsOnly(ORGANIZER, input.organizer),
  );
  const categories = attempt(() =>
    input.categories === undefined ? [] : termIdsOnly(CATEGORY, 'categories', input.categories),
  );
  const tags = attempt(() => (input.tags === undefined ? [] : termIdsOnly(TAG, 'tags', input.tags)));
  if ([venues, organizers, categories, tags].some((r) => 'value' in r && r.value === undefined)) return undefined;
  const ids = (r: { value: number[] | undefined } | { error: unknown }) => ('value' in r ? (r.value ?? []) : []);
  const { caller, siteZone } = ctx;
  const title = input.title.trim();
  const publishedAt = publicationDate(input, siteZone);
  const when = times(input, undefined, siteZone);
  const base = (input.slug !== undefined ? slugify(input.slug) : '') || slugify(title) || 'event';
  // Before the author and the links, as in insertEvent: an image ID is refused first.
  const c = columns(input);
  return () =>
    transaction(async (query) => {
      const rows = (await query(
        `SELECT 'venue' AS kind, id, author_id, status::text AS status, NULL AS slug FROM venues WHERE id = ANY($1::int[])
         UNION ALL SELECT 'organizer', id, author_id, status::text, NULL FROM organizers WHERE id = ANY($2::int[])
         UNION ALL SELECT taxonomy::text, id, NULL, NULL, NULL FROM terms
           WHERE (taxonomy = 'tribe_events_cat' AND id = ANY($3::int[])) OR (taxonomy = 'post_tag' AND id = ANY($4::int[]))
         UNION ALL SELECT 'user', id, NULL, NULL, NULL FROM users WHERE id = $5::int
         UNION ALL SELECT 'slug', NULL, NULL, NULL, slug FROM events WHERE slug LIKE $6::text`,
        [ids(venues), ids(organizers), ids(categories), ids(tags), input.author ?? null, `${likeEscaped(base)}%`],
      )) as { kind: string; id: number; author_id: number | null; status: PostStatus; slug: string }[];
      const of = (kind: string) =>
        rows.filter((r) => r.kind === kind).map((r) => ({ id: r.id, authorId: r.author_id, status: r.status }));
      const slug = firstFreeSlug(
        base,
        rows.filter((r) => r.kind === 'slug').map((r) => r.slug),
      );
      const authorId = await effectiveAuthor(caller, input.author, undefined, (user) =>
        Promise.resolve(of('user').some((r) => r.id === user)),
      );
      const venueIds = take(venues) ?? [];
      assertVenuesOrOrganizersFound(caller, VENUE, venueIds, of('venue'));
      const organizerIds = take(organizers) ?? [];
      assertVenuesOrOrganizersFound(caller, ORGANIZER, organizerIds, of('organizer'));
      const categoryIds = take(categories) ?? [];
      assertTermsFound(CATEGORY, 'categories', categoryIds, new Set(of(CATEGORY).map((r) => r.id)));
      const tagIds = take(tags) ?? [];
      assertTermsFound(TAG, 'tags', tagIds, new Set(of(TAG).map((r) => r.id)));

      const now = new Date().toISOString();
      const wallClock = (d: Date) => d.toISOString().replace('Z', '');
      const values: [string, unknown, string][] = [];
      const set = (column: string, value: unknown, type: string) => {
        if (value !== undefined) values.push([column, value, type]);
      };
      set('author_id', authorId, 'int');
      set('status', effectiveStatus(caller, input.status), '"PostStatus"');
      set('slug', slug, 'text');
      set('title', title, 'text');
      set('description', c.description, 'text');
      set('excerpt', c.excerpt, 'text');
      set('published_at', publishedAt?.toISOString() ?? now, 'timestamptz');
      set('modified_at', now, 'timestamptz');
      set('start_local', wallClock(when.startLocal), 'timestamp');
      set('end_local', wallClock(when.endLocal), 'timestamp');
      set('start_utc', when.startUtc.toISOString(), 'timestamptz');
      set('end_utc', when.endUtc.toISOString(), 'timestamptz');
      set('timezone', when.timezone, 'text');
      set('all_day', when.allDay, 'boolean');
      set(
        'cost',
        c.cost === undefined ? undefined : c.cost === PrismaNS.DbNull ? null : JSON.stringify(c.cost),
        'jsonb',
      );
      set('website', c.website, 'text');
      set('image', c.image, 'text');
      set('show_map', c.showMap, 'boolean');
      set('show_map_link', c.showMapLink, 'boolean');
      set('hide_from_listings', c.hideFromListings, 'boolean');
      set('sticky', c.sticky, 'boolean');
      set('featured', c.featured, 'boolean');
      const [{ id }] = (await query(
        `INSERT INTO events (${values.map(([column]) => column).join(', ')})
         VALUES (${values.map(([, , type], i) => `$${i + 1}::${type}`).join(', ')}) RETURNING id`,
        values.map(([, value]) => value),
      )) as { id: number }[];
      const terms = [...categoryIds, ...tagIds];
      if (venueIds.length || organizerIds.length || terms.length) {
        // One statement: each link's trigger sees the event inserted above.
        await query(
          `WITH v AS (INSERT INTO event_venues (event_id, venue_id, position)
                      SELECT $1::int, t.id, t.n - 1 FROM unnest($2::int[]) WITH ORDINALITY AS t(id, n)),
                o AS (INSERT INTO event_organizers (event_id, organizer_id, position)
                      SELECT $1::int, t.id, t.n - 1 FROM unnest($3::int[]) WITH ORDINALITY AS t(id, n))
           INSERT INTO event_terms (event_id, term_id) SELECT $1::int, t.id FROM unnest($4::int[]) AS t(id)`,
          [id, venueIds, organizerIds, terms],
        );
      }
      await chargeCreate(query, ctx);
      return id;
    });
}

/** Creates the event inside the caller's transaction and answers its ID (the importer's writes). */
export async function insertEvent(
  tx: Tx,
  ctx: ServiceContext,
  input: components['schemas']['EventInput'],
): Promise<number> {
  const { caller, siteZone } = ctx;
  const title = input.title.trim();
  const publishedAt = publicationDate(input, siteZone);
  const when = times(input, undefined, siteZone);
  const { id, authorId } = await tx.event.create({
    data: {
      ...columns(input),
      ...when,
      recurrence: recurrenceFor(input, undefined, when),
      title,
      slug: await freeSlug(input.slug, title, 'event', (base) => takenSlugs(tx, base, undefined)),
      status: effectiveStatus(caller, input.status),
      authorId: await effectiveAuthor(caller, input.author, undefined, (user) => userExists(tx, user)),
      ...(publishedAt ? { publishedAt } : {}),
    },
    select: { id: true, authorId: true },
  });
  await writeLinks(tx, ctx, id, input, true);
  if (input.recurrence?.length) {
    await assertSeriesRoom(tx, ctx, authorId, id);
    await syncSeries(tx, ctx, id, { rebuild: true, links: false });
  }
  await chargeCreateIn(tx, ctx);
  return id;
}
