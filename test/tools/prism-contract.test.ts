// A contract run with tools no one here wrote (issue 34): the document the live service serves is
// converted to a Postman collection by openapi-to-postmanv2 (its request bodies and parameter values
// taken from the document's examples), newman runs it through Stoplight Prism's validating proxy
// pointed at the service, and every answer's `sl-violations` header is counted: there must be none.
// The collection is only adjusted so that its requests can succeed: path variables name seeded
// objects, optional parameters are off in the plain request and each of `_envelope=1`, `_fields`,
// `_embed=1` gets a request of its own where the operation takes it, every read by ID
// also asks for an ID that does not exist and every list for `per_page=0`, and deletes come last.
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import newman, { type NewmanRunSummary } from 'newman';
import { type CollectionResult, convertV2 } from 'openapi-to-postmanv2';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { receiver } from '../setup/receiver.js';
import { startServer, type TestServer } from '../setup/server.js';
import { submit } from '../setup/submissions.js';
import { photo } from '../setup/images.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const MISSING_ID = '987654321';
/** The variant of a list that is invalid on purpose, for its 400 answer. */
const INVALID_ON_PURPOSE = 'per_page=0';

/** The parts of a Postman collection (v2.1) this file reads and changes. */
interface PostmanParam {
  key: string;
  value?: string;
  disabled?: boolean;
  description?: string | { content?: string };
}
interface PostmanRequest {
  method: string;
  header?: PostmanParam[];
  url: { raw?: string; host?: string[]; path?: string[]; query?: PostmanParam[]; variable?: PostmanParam[] };
  body?: { mode?: string; raw?: string; formdata?: { key: string; type?: string; src?: string }[] };
  auth?: unknown;
}
interface PostmanItem {
  name: string;
  item?: PostmanItem[];
  request?: PostmanRequest;
  response?: unknown[];
}
interface PostmanCollection {
  item: PostmanItem[];
  variable?: PostmanParam[];
  auth?: unknown;
  info: unknown;
}

interface Violation {
  location?: string[];
  severity?: string;
  code?: string | number;
  message?: string;
}

interface Answer {
  name: string;
  status: number;
  violations: Violation[];
}

/** `required ×3 ('a', 'b', 'c')`-style counts of violations, by where and what. */
function grouped(violations: Violation[]): Map<string, string[]> {
  const groups = new Map<string, string[]>();
  for (const violation of violations) {
    const key = `${violation.location?.slice(0, 2).join('.') ?? '?'} ${violation.code ?? '?'}`;
    const detail = /required property '([^']+)'/.exec(violation.message ?? '')?.[1] ?? violation.message ?? '';
    groups.set(key, [...(groups.get(key) ?? []), detail]);
  }
  return groups;
}

/** One answer's violations on one line. */
function describeAnswer(answer: Answer): string {
  const parts = [...grouped(answer.violations)].map(([key, details]) => {
    const distinct = [...new Set(details)];
    const shown = distinct.slice(0, 6).join(', ') + (distinct.length > 6 ? `, … ${distinct.length - 6} more` : '');
    return `${key} ×${details.length} (${shown})`;
  });
  return `${answer.name} → ${answer.status}: ${parts.join('; ')}`;
}

/** Violation counts by kind over the whole run. */
function kinds(answers: Answer[]): string {
  const counts = new Map<string, number>();
  for (const answer of answers)
    for (const [key, details] of grouped(answer.violations)) counts.set(key, (counts.get(key) ?? 0) + details.length);
  return [...counts].map(([key, n]) => `${key} ${n}`).join(', ');
}

/** Fields asked for with `_fields`, by the route's first segment. */
const FIELDS: Record<string, string> = {
  '': 'namespace,routes',
  doc: 'openapi,info.title',
  events: 'id,title,venue.venue,organizer',
  venues: 'id,venue',
  organizers: 'id,organizer',
  categories: 'id,name',
  tags: 'id,name',
  webhooks: 'id,url',
  media: 'id,url,sizes',
  changes: 'changes',
  federation: 'id,actor',
};

/**
 * The violations of an `sl-violations` header. Past 8 KiB Prism cuts the JSON short behind `Too many
 * violations! `; the complete entries are read from what is left, and the rest counted as one.
 */
function parseViolations(header: string | undefined): Violation[] {
  if (!header) return [];
  if (header.startsWith('[')) return JSON.parse(header) as Violation[];
  const entries = [
    ...header.matchAll(
      /\{"location":\[[^\]]*\],"severity":"[^"]*","code":("[^"]*"|\d+),"message":"(?:[^"\\]|\\.)*"\}/g,
    ),
  ];
  return [
    ...entries.map((entry) => JSON.parse(entry[0]) as Violation),
    { location: ['header'], code: 'truncated', message: 'more violations than the header holds' },
  ];
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => {
        resolve(port);
      });
    });
  });
}

function convert(document: object): Promise<PostmanCollection> {
  return new Promise((resolve, reject) => {
    convertV2(
      { type: 'json', data: document },
      { parametersResolution: 'Example' },
      (error, result?: CollectionResult) => {
        const output = result?.output?.[0];
        if (error || !result?.result || !output) reject(new Error(error?.message ?? JSON.stringify(result)));
        else resolve(output.data as PostmanCollection);
      },
    );
  });
}

function isRequired(param: PostmanParam): boolean {
  const description = typeof param.description === 'string' ? param.description : param.description?.content;
  return description?.startsWith('(Required)') ?? false;
}

/** The operations of the collection, folders flattened, in the converter's order. */
function operations(items: PostmanItem[]): PostmanItem[] {
  return items.flatMap((item) => {
    if (item.item) return operations(item.item);
    return item.request ? [item] : [];
  });
}

/** `GET /events/{id}` for a request of the collection. */
function operationOf(request: PostmanRequest): string {
  const segments = (request.url.path ?? []).map((s) => (s.startsWith(':') ? `{${s.slice(1)}}` : s));
  return `${request.method} /${segments.join('/')}`;
}

/** Where a variant goes in the run: reads, then creates, then updates and actions, then deletes. */
function phase(request: PostmanRequest): number {
  if (request.method === 'GET') return 0;
  if (request.method === 'DELETE') return 3;
  const hasVariable = (request.url.variable ?? []).length > 0;
  return request.method === 'POST' && !hasVariable ? 1 : 2;
}

/**
 * A request body from the document's examples, its links to other objects pointed at seeded ones
 * (the examples name IDs of some other database) and a webhook's address at the local receiver.
 */
function linkSeeded(resource: string, raw: string, seeded: Record<string, string>): string {
  let body: unknown;
  try {
    body = JSON.parse(raw);
  } catch {
    return raw;
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return raw;
  const fields = body as Record<string, unknown>;
  const id = (key: string) => Number(seeded[key]);
  if (typeof fields.venue === 'number') fields.venue = id('venuesId');
  if (Array.isArray(fields.organizer)) fields.organizer = [id('organizersId')];
  if (Array.isArray(fields.categories)) fields.categories = [id('categoriesId')];
  if (Array.isArray(fields.tags)) fields.tags = [id('tagsId')];
  if (resource === 'categories' && typeof fields.parent === 'number') fields.parent = id('categoriesId');
  if (resource === 'webhooks' && 'url' in fields) fields.url = seeded.webhookUrl;
  return JSON.stringify(fields, null, 2);
}

/**
 * The requests of one operation: the plain one (required parameters only, path variables naming
 * seeded objects) and its variants.
 */
function variants(item: PostmanItem, seeded: Record<string, string>): PostmanItem[] {
  const request = item.request!;
  const resource = request.url.path?.[0] ?? '';
  const plain = plainRequest(request, resource, seeded);
  const takes = (key: string) => (request.url.query ?? []).some((param) => param.key === key);
  const withQuery = (label: string, set: Record<string, string>, change?: (r: PostmanRequest) => void) => {
    const variant: PostmanRequest = structuredClone(plain);
    const query = (variant.url.query ?? []).filter((param) => !(param.key in set));
    variant.url.query = [...query, ...Object.entries(set).map(([key, value]) => ({ key, value }))];
    change?.(variant);
    return { name: `${operationOf(request)} (${label})`, request: variant };
  };
  const list: PostmanItem[] = [{ name: operationOf(request), request: plain }];
  if (takes('_envelope')) list.push(withQuery('_envelope=1', { _envelope: '1' }));
  if (request.method === 'GET') {
    if (takes('_fields')) list.push(withQuery('_fields', { _fields: FIELDS[resource] ?? 'id' }));
    if (takes('_embed')) list.push(withQuery('_embed=1', { _embed: '1' }));
    if (takes('per_page')) list.push(withQuery(INVALID_ON_PURPOSE, { per_page: '0' }));
    const id = plain.url.variable?.find((variable) => variable.key === 'id');
    if (id)
      list.push(
        withQuery('unknown ID', {}, (r) => {
          r.url.variable = r.url.variable!.map((v) => (v.key === 'id' ? { ...v, value: MISSING_ID } : v));
        }),
      );
  }
  return list;
}

/** The request with its required parameters only, its path variables naming seeded objects. */
function plainRequest(request: PostmanRequest, resource: string, seeded: Record<string, string>): PostmanRequest {
  const deleting = request.method === 'DELETE' ? 'Delete' : '';
  const plain: PostmanRequest = structuredClone(request);
  // An RSVP is named by its event and its own ID (`/events/{id}/rsvps/{rsvp_id}`).
  const seededAs = (key: string) => {
    if (key === 'slug') return `${resource}Slug`;
    return key === 'rsvp_id' ? `rsvps${deleting}Id` : `${resource}${deleting}Id`;
  };
  for (const variable of plain.url.variable ?? []) variable.value = `{{${seededAs(variable.key)}}}`;
  // A variable inside a segment (`/events/{id}.ics`) is written as a collection variable.
  plain.url.path = plain.url.path?.map((segment) =>
    segment.replace('{{id}}', `{{${resource}Id}}`).replace('{{slug}}', `{{${resource}Slug}}`),
  );
  for (const param of plain.url.query ?? []) param.disabled = !isRequired(param);
  // Conditional and idempotency headers hold example values that name no real version.
  for (const header of plain.header ?? [])
    if (!['content-type', 'accept'].includes(header.key.toLowerCase())) header.disabled = true;
  if (plain.body?.raw) plain.body.raw = linkSeeded(resource, plain.body.raw, seeded);
  withUploadFile(plain, seeded.uploadFile);
  delete plain.url.raw;
  return plain;
}

/**
 * An upload's form sends a real file, as a client would: the converter names none (and Prism's
 * multipart parser fails on a file part sent without its Content-Type). Prism forwards the form as
 * text, which mangles the image's bytes: the service answers that upload with its 415.
 */
function withUploadFile(request: PostmanRequest, file: string) {
  for (const part of request.body?.formdata ?? []) if (part.type === 'file') part.src = file;
}

function runNewman(collection: PostmanCollection): Promise<NewmanRunSummary> {
  return new Promise((resolve, reject) => {
    newman.run({ collection: collection as never, reporters: [], timeoutRequest: 30_000 }, (error, summary) => {
      if (error) reject(error);
      else resolve(summary);
    });
  });
}

describe('the Postman converter’s collection through Prism’s validating proxy', () => {
  let s: TestServer;
  let hooks: Awaited<ReturnType<typeof receiver>>;
  let prism: ChildProcess | undefined;
  let prismOutput = '';
  let prismUrl: string;
  let work: string;
  let document: { paths: Record<string, unknown> };
  const seeded: Record<string, string> = {};

  beforeAll(async () => {
    hooks = await receiver();
    s = await startServer('pglite', {
      WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
      // Public submissions taken, from any address (test/setup/submissions.ts), seeded below.
      SUBMISSIONS: 'anyone',
      SUBMISSION_POW_COST: '20',
      TRUST_PROXY: 'loopback',
      // Federation on, so that the followers' decisions are taken (no worker sends what they queue).
      PUBLIC_URL: 'https://events.example.org',
    });
    const create = async (route: string, body: object) => {
      const r = await s.post(route, body);
      expect(r.status, `${route}: ${r.text}`).toBe(201);
      return r.body as { id: number; slug?: string };
    };
    // Within the lists' default window (from now to two years ahead).
    const day = new Date(Date.now() + 7 * 86_400_000).toISOString().slice(0, 10);
    // Each resource: one object to read and change, one to delete by ID, one to delete by slug.
    for (const purpose of ['', 'Delete', 'DeleteSlug']) {
      const category = await create('/categories', { name: `Seed category ${purpose}` });
      const tag = await create('/tags', { name: `Seed tag ${purpose}` });
      const venue = await create('/venues', {
        venue: `Seed venue ${purpose}`,
        address: '131 W 3rd St',
        city: 'New York',
        state: 'NY',
        zip: '10012',
        country: 'United States',
        website: 'https://bluenotehall.example.com',
      });
      const organizer = await create('/organizers', {
        organizer: `Seed organizer ${purpose}`,
        email: 'hello@harborarts.example.com',
        website: 'https://harborarts.example.com',
      });
      const event = await create('/events', {
        title: `Seed event ${purpose}`,
        start_date: `${day} 19:30`,
        end_date: `${day} 22:30`,
        timezone: 'America/New_York',
        website: 'https://bluenotehall.example.com/winter-jazz-night',
        cost: '10 – 25$',
        venue: venue.id,
        organizer: [organizer.id],
        categories: [category.id],
        tags: [tag.id],
        rsvp: { open: true },
      });
      // The caller's own RSVP to it, to read, change and cancel.
      const rsvp = purpose === 'DeleteSlug' ? undefined : await create(`/events/${event.id}/rsvps`, {});
      if (rsvp) seeded[`rsvps${purpose}Id`] = String(rsvp.id);
      const webhook = await create('/webhooks', { url: hooks.url, events: ['event.*'] });
      const uploaded = await s.request('POST', '/media', {
        raw: { contentType: 'image/png', data: await photo(40, 30, { format: 'png' }) },
        headers: { 'content-disposition': `attachment; filename="seed${purpose}.png"` },
      });
      expect(uploaded.status, uploaded.text).toBe(201);
      const media = uploaded.body as { id: number; slug?: string };
      const ids = { categories: category, tags: tag, venues: venue, organizers: organizer, events: event };
      // A submission waiting in the queue, to read, approve and reject.
      const submitted = await submit(s, { title: `Seed submission ${purpose}` });
      expect(submitted.status, submitted.text).toBe(202);
      seeded[`submissions${purpose}Id`] = String(submitted.body.id);
      // A follow waiting for approval, to list, approve, reject and remove.
      const [follower] = await s.db.prisma.$queryRaw<{ id: number }[]>`
        INSERT INTO federation_followers (actor_id, inbox, shared_inbox, follow_id, accepted)
        VALUES (${`https://mastodon.example/users/seed${purpose}`}, ${`https://mastodon.example/users/seed${purpose}/inbox`},
          'https://mastodon.example/inbox', ${`https://mastodon.example/follows/seed${purpose}`}, false)
        RETURNING id`;
      seeded[`followers${purpose}Id`] = String(follower.id);
      // A followed source, as the inbox leaves one once its actor accepts: following one for real
      // needs a remote actor (test/http/federation-sources.test.ts), and federation is off here.
      const [source] = await s.db.prisma.$queryRaw<{ id: number }[]>`
        INSERT INTO federation_sources (actor_id, name, actor_type, inbox, host, follow_id, state, accepted_at)
        VALUES (${`https://mobilizon.example.org/@seed${purpose}`}, 'Seed source', 'Group',
          ${`https://mobilizon.example.org/@seed${purpose}/inbox`}, 'mobilizon.example.org',
          ${`https://calendar.example.org/follows/${purpose}`}, 'accepted', now())
        RETURNING id`;
      seeded[`federation${purpose}Id`] = String(source.id);
      for (const [resource, object] of Object.entries({ ...ids, webhooks: webhook, media })) {
        if (purpose === 'DeleteSlug') seeded[`${resource}DeleteSlug`] = object.slug ?? '';
        else seeded[`${resource}${purpose}Id`] = String(object.id);
        if (purpose === '') seeded[`${resource}Slug`] = object.slug ?? '';
      }
    }

    const response = await fetch(`${s.base}/doc`, { headers: { accept: 'application/json' } });
    expect(response.status).toBe(200);
    document = (await response.json()) as typeof document;
    work = fs.mkdtempSync(path.join(os.tmpdir(), 'calendar-prism-'));
    seeded.uploadFile = path.join(work, 'poster.png');
    fs.writeFileSync(seeded.uploadFile, await photo(60, 40, { format: 'png' }));
    const documentFile = path.join(work, 'openapi.json');
    fs.writeFileSync(documentFile, JSON.stringify(document));

    const port = await freePort();
    prismUrl = `http://127.0.0.1:${port}`;
    prism = spawn(
      process.execPath,
      [
        path.join(ROOT, 'node_modules/@stoplight/prism-cli/dist/index.js'),
        'proxy',
        documentFile,
        s.base,
        '--errors=false',
        '--host',
        '127.0.0.1',
        '--port',
        String(port),
      ],
      { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' } },
    );
    const listening = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        reject(new Error(`Prism did not start:\n${prismOutput.slice(-3000)}`));
      }, 60_000);
      const read = (chunk: Buffer) => {
        // Keep the tail only: Prism logs every operation at start and every request.
        prismOutput = (prismOutput + chunk.toString()).slice(-20_000);
        if (prismOutput.includes('Prism is listening')) {
          clearTimeout(timer);
          resolve();
        }
      };
      prism!.stdout!.on('data', read);
      prism!.stderr!.on('data', read);
      prism!.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`Prism exited (${code}):\n${prismOutput.slice(-3000)}`));
      });
    });
    await listening;
  }, 120_000);

  afterAll(async () => {
    const child = prism;
    if (child?.exitCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
    await s?.close();
    await hooks?.close();
    if (work) fs.rmSync(work, { recursive: true, force: true });
  });

  it('finds no violation in any answer, _envelope, _fields, _embed and iCalendar included', async () => {
    const converted = await convert(document);
    const items = operations(converted.item)
      .flatMap((item) => variants(item, { ...seeded, webhookUrl: hooks.url }))
      .map((item, order) => ({ item, order }))
      .sort((a, b) => phase(a.item.request!) - phase(b.item.request!) || a.order - b.order)
      .map(({ item }) => item);
    const collection: PostmanCollection = {
      ...converted,
      item: items,
      variable: [
        { key: 'baseUrl', value: prismUrl },
        { key: 'basicAuthUsername', value: s.users.administrator.login },
        { key: 'basicAuthPassword', value: s.users.administrator.appPassword },
        { key: 'bearerToken', value: s.users.administrator.appPassword },
        ...Object.entries(seeded).map(([key, value]) => ({ key, value })),
      ],
    };
    const requested = items.map((item) => item.request!);
    // The run covers what issue 34 names.
    const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'];
    expect(new Set(requested.map(operationOf)).size).toBe(
      Object.values(document.paths).reduce<number>(
        (n, ops) => n + Object.keys(ops as object).filter((k) => METHODS.includes(k)).length,
        0,
      ),
    );
    for (const key of ['_envelope', '_fields'])
      expect(requested.some((r) => r.url.query?.some((q) => q.key === key && !q.disabled))).toBe(true);
    // The iCalendar answers are those of the `.ics` operations. `ical=1` on a JSON URL answers 303
    // to them, which Prism 5 follows itself (node-fetch's default) and then holds the calendar to the
    // JSON operation; test/http/events-ical.test.ts checks each of the two answers against the document.
    expect(new Set(requested.filter((r) => r.url.path?.at(-1)?.endsWith('.ics')).map(operationOf)).size).toBe(3);

    const summary = await runNewman(collection);
    const answers: Answer[] = [];
    // Whether Prism saw each request that is invalid on purpose: it must, or it checked nothing.
    const invalidSeen: boolean[] = [];
    const errors = summary.run.failures.map((f) => `${f.source?.name ?? '?'}: ${f.error.message}`);
    for (const execution of summary.run.executions) {
      const name = execution.item.name;
      if (!(execution.response as unknown)) {
        errors.push(`${name}: no answer`);
        continue;
      }
      const reported = parseViolations(execution.response.headers.get('sl-violations'));
      if (name.endsWith(`(${INVALID_ON_PURPOSE})`))
        invalidSeen.push(reported.some((v) => v.location?.[0] === 'request'));
      const violations = reported.filter(
        // A request sent invalid on purpose is one; what counts is whether its answer conforms.
        (violation) => !(name.endsWith(`(${INVALID_ON_PURPOSE})`) && violation.location?.[0] === 'request'),
      );
      answers.push({ name, status: execution.response.code, violations });
    }
    fs.mkdirSync(path.join(ROOT, 'test-artifacts'), { recursive: true });
    fs.writeFileSync(path.join(ROOT, 'test-artifacts', 'prism-contract.json'), JSON.stringify(answers, null, 2));
    const failing = answers.filter((answer) => answer.violations.length > 0);
    const report = failing.map(describeAnswer);
    const total = failing.reduce((n, answer) => n + answer.violations.length, 0);
    const statuses = answers.reduce<Record<number, number>>((counts, a) => {
      counts[a.status] = (counts[a.status] ?? 0) + 1;
      return counts;
    }, {});
    console.log(
      [
        `Prism contract run: ${answers.length} answers (statuses ${JSON.stringify(statuses)}), ${failing.length} with violations, ${total} violations${total ? ` (${kinds(failing)})` : ''}`,
        ...report.map((line) => `  ${line}`),
      ].join('\n'),
    );
    // A request Prism could not take ends it: what it said last tells why.
    if (errors.length) console.log(prismOutput.slice(-4000));
    expect(errors).toEqual([]);
    expect(answers.length).toBe(items.length);
    // Controls: Prism validates (it flags every request invalid on purpose), and the requests reach
    // real objects (every plain read succeeds, the three calendars included).
    expect(invalidSeen.length).toBeGreaterThan(5);
    expect(invalidSeen.every(Boolean)).toBe(true);
    // A submission's state opens to its submitter's token alone, which no collection holds: its
    // answer (404, as for a wrong token) is checked against the document all the same, and its
    // success is test/http/submissions.test.ts's.
    const plainReads = answers.filter(
      (a) => a.name.startsWith('GET ') && !a.name.includes('(') && a.name !== 'GET /submissions/{id}/status',
    );
    expect(plainReads.filter((a) => a.status >= 300).map((a) => `${a.name} → ${a.status}`)).toEqual([]);
    expect(plainReads.filter((a) => a.name.includes('.ics')).map((a) => a.name)).toHaveLength(3);
    expect(report, `${total} violations in ${failing.length} of ${answers.length} answers`).toEqual([]);
  }, 240_000);
});
