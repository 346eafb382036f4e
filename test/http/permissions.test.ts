// Every operation of the document, called as an anonymous client and as each role, against the
// capability matrix below (written out here, independently of the document's `x-required-role`).
// Refused writes must leave every table as it was, and no response may carry a secret.
import { beforeAll, expect, it } from 'vitest';
import { ROLES, type Role } from '../../src/auth/roles.js';
import { createBackend } from '../../src/http/backend.js';
import { loadDocument } from '../../src/openapi.js';
import { insertEvent } from '../factories.js';
import { FULL_RUN } from '../setup/budget.js';
import { describeEachDatabase } from '../setup/each-database.js';
import { photo } from '../setup/images.js';
import { storedRows } from '../setup/stored-rows.js';

type Resource = 'events' | 'venues' | 'organizers' | 'categories' | 'tags' | 'webhooks' | 'changes' | 'media';
type Caller = Role | null;

/** The least role that may create, or change items of others, per resource (docs/decisions.md, "Permissions and roles"). */
const WRITE_ROLE: Record<Resource, Role> = {
  events: 'contributor',
  venues: 'contributor',
  organizers: 'contributor',
  categories: 'author',
  tags: 'editor',
  webhooks: 'administrator',
  changes: 'administrator',
  // WordPress's upload_files: authors and up.
  media: 'author',
};
/** Changing or deleting an item someone else published needs an editor. */
const OTHERS_ITEMS_ROLE: Record<Resource, Role> = {
  events: 'editor',
  venues: 'editor',
  organizers: 'editor',
  categories: 'author',
  tags: 'editor',
  webhooks: 'administrator',
  changes: 'administrator',
  media: 'editor',
};
/** Resources that only administrators may even read. */
const ADMINISTRATORS_ONLY: Resource[] = ['webhooks'];

const rank = (role: Role) => ROLES.indexOf(role);
const atLeast = (caller: Caller, role: Role) => caller !== null && rank(caller) <= rank(role);

const operations = createBackend(loadDocument()).router.getOperations();

function successStatus(method: string, item: boolean, path: string): number {
  if (method === 'post' && !item) return 201;
  // A test message is queued, not sent: 202.
  return path.endsWith('/ping') ? 202 : 200;
}

function expected(method: string, resource: Resource | undefined, item: boolean, caller: Caller, path: string): number {
  const success = successStatus(method, item, path);
  if (!resource || (method === 'get' && !ADMINISTRATORS_ONLY.includes(resource))) return success;
  const needed = item ? OTHERS_ITEMS_ROLE[resource] : WRITE_ROLE[resource];
  if (caller === null) return 401;
  if (!atLeast(caller, needed)) return 403;
  return success;
}

// The whole matrix in a full run (the slow part runs this file again, test/setup/budget.ts), and in
// the fast part only the callers at its edges (anonymous, contributor, editor): the rules are the same
// code for every role, what the matrix adds is each role's row.
const EDGE_CALLERS: Caller[] = [null, 'contributor', 'editor'];

describeEachDatabase('the capability matrix', (s) => {
  let secrets: string[];
  let image: Buffer;
  beforeAll(async () => {
    secrets = Object.values(s.users).flatMap((u) => [u.password, u.appPassword]);
    image = await photo(60, 40, { format: 'png' });
  });

  let counter = 0;
  /** A published item owned by the administrator, made fresh for each call. */
  async function fixture(resource: Resource): Promise<{ id: number; slug: string }> {
    const n = ++counter;
    const owner = { authorId: s.users.administrator.id };
    switch (resource) {
      case 'events':
        return insertEvent(s.db, { title: `Matrix event ${n}` });
      case 'venues':
        return s.db.prisma.venue.create({ data: { name: `Matrix venue ${n}`, slug: `matrix-venue-${n}`, ...owner } });
      case 'organizers':
        return s.db.prisma.organizer.create({
          data: { name: `Matrix organizer ${n}`, slug: `matrix-organizer-${n}`, ...owner },
        });
      case 'webhooks':
        return {
          ...(await s.db.prisma.webhookSubscription.create({
            data: { url: `https://hooks.example.org/${n}`, eventTypes: ['*'], secret: `whsec_${'A'.repeat(43)}=` },
          })),
          slug: '',
        };
      case 'changes':
        throw new Error('the change feed has no items');
      case 'media': {
        const meta = { id: 0, file: `0/m-${n}.png`, extension: 'png', width: 60, height: 40, filesize: 10, sizes: {} };
        return s.db.prisma.media.create({ data: { slug: `m-${n}`, mimeType: 'image/png', meta, ...owner } });
      }
      case 'categories':
      case 'tags':
        return s.db.prisma.term.create({
          data: {
            taxonomy: resource === 'tags' ? 'post_tag' : 'tribe_events_cat',
            name: `Matrix term ${n}`,
            slug: `matrix-term-${n}`,
          },
        });
    }
  }

  function createBody(resource: Resource) {
    const n = ++counter;
    switch (resource) {
      case 'events':
        return { title: `Made ${n}`, start_date: '2031-01-01 10:00:00', end_date: '2031-01-01 12:00:00' };
      case 'venues':
        return { venue: `Made venue ${n}` };
      case 'organizers':
        return { organizer: `Made organizer ${n}` };
      case 'webhooks':
        return { url: `http://93.184.215.14/hook/${n}`, events: ['event.*'] };
      default:
        return { name: `Made term ${n}` };
    }
  }

  /** The body of a write: a change to the item, or a new one; reads and deletes send none. */
  function requestBody(method: string, item: boolean, resource: Resource | undefined, caller: Caller) {
    if (method === 'get' || method === 'delete') return undefined;
    if (resource === 'media') return item ? { caption: `changed by ${caller}` } : undefined;
    return item ? { description: `changed by ${caller}` } : createBody(resource!);
  }

  const callers: Caller[] = FULL_RUN ? [null, ...ROLES] : EDGE_CALLERS;
  // The batch route is open to every caller; each of its requests is checked below.
  const cases = operations
    .filter((op) => op.operationId !== 'batchRequests')
    .flatMap((op) => callers.map((caller) => ({ op, caller })));

  it.each(callers.map((caller) => [caller ?? 'anonymous', caller] as const))(
    'batchRequests as %s: each request checked as if sent alone',
    async (_who, caller) => {
      const requests = (['events', 'webhooks'] as const).map((resource) => ({
        path: `/calendar/events/v1/${resource}`,
        body: createBody(resource),
      }));
      const r = await s.request('POST', '/batch/v1', { fromRoot: true, as: caller, body: { requests } });
      expect(r.status).toBe(207);
      expect(r.body.responses.map((answer: { status: number }) => answer.status)).toEqual([
        expected('post', 'events', false, caller, '/events'),
        expected('post', 'webhooks', false, caller, '/webhooks'),
      ]);
    },
  );

  it.each(cases.map(({ op, caller }) => [op.operationId!, caller ?? 'anonymous', op, caller] as const))(
    '%s as %s',
    async (_id, _who, op, caller) => {
      const resource = op.path.split('/')[1] as Resource | undefined;
      const item = op.path.includes('{');
      const target = resource && item ? await fixture(resource) : undefined;
      const path = op.path
        .replace('{id}', String(target?.id))
        .replace('{slug}', encodeURIComponent(target?.slug ?? ''));
      const method = op.method.toLowerCase();
      const body = requestBody(method, item, resource, caller);
      const want = expected(method, resource, item, caller, op.path);
      const before = method === 'get' && want < 400 ? undefined : await storedRows(s.db);

      // An upload's body is the image itself.
      const upload = resource === 'media' && method === 'post' && !item;
      const r = await s.request(method.toUpperCase(), path, {
        body,
        as: caller,
        ...(upload ? { raw: { contentType: 'image/png', data: image } } : {}),
      });
      expect(r.status, JSON.stringify(r.body)).toBe(want);
      if (want === 401 || want === 403) {
        expect(r.body.code).toBe('rest_forbidden');
        expect(await storedRows(s.db)).toBe(before);
      }
      for (const secret of secrets) expect(r.text).not.toContain(secret);
      expect(r.text).not.toContain('scrypt$');
    },
  );
});
