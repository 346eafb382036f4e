import fs from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { handlers } from '../src/handlers/index.js';
import { createBackend } from '../src/http/backend.js';
import { loadDocument } from '../src/openapi.js';

describe('the contract', () => {
  const operations = createBackend(loadDocument()).router.getOperations();

  it('has operations for every route and method of the specification, the change feed, webhooks, RSVPs, submissions and federation', () => {
    expect(operations.length).toBe(97);
    expect(operations.map((op) => op.operationId)).toEqual(
      expect.arrayContaining([
        'uploadMedia',
        'deleteMedia',
        'listChanges',
        'createWebhook',
        'pingWebhook',
        'rotateWebhookSecret',
        'listWebhookDeliveries',
        'batchRequests',
        'listRsvps',
        'createRsvp',
        'getRsvp',
        'updateRsvp',
        'deleteRsvp',
        'checkInRsvp',
        'exportRsvps',
        'eraseRsvps',
        'submitEvent',
        'getSubmissionChallenge',
        'listSubmissions',
        'approveSubmission',
        'rejectSubmission',
        'listFollowers',
        'approveFollower',
        'rejectFollower',
        'deleteFollower',
        'listFederationSources',
        'followFederationSource',
        'getFederationSource',
        'updateFederationSource',
        'unfollowFederationSource',
      ]),
    );
  });

  it('has a handler for every operation of the bundle, and no handler without an operation', () => {
    const ids = operations.map((op) => op.operationId).sort();
    // The batch route's handler is app.ts's own: it answers each request with the whole app.
    expect([...Object.keys(handlers), 'batchRequests'].sort()).toEqual(ids);
  });

  it('gives every operation a summary, a description, a tag and a 2xx response', () => {
    for (const op of operations) {
      expect(op.summary, op.operationId).toBeTruthy();
      expect(op.description, op.operationId).toBeTruthy();
      expect(op.tags?.length, op.operationId).toBe(1);
      expect(
        Object.keys(op.responses ?? {}).some((s) => s.startsWith('2')),
        op.operationId,
      ).toBe(true);
    }
  });

  it('gives every success answer in JSON a named example, and the main operations a curl sample', () => {
    const document = loadDocument() as { components: { responses: Record<string, unknown> } };
    for (const op of operations) {
      const answers = Object.entries(op.responses ?? {}).filter(([status]) => status.startsWith('2'));
      const examples = answers.flatMap(([, answer]) => {
        const ref = (answer as { $ref?: string }).$ref;
        const resolved = (ref ? document.components.responses[ref.split('/').at(-1) ?? ''] : answer) as {
          content?: Record<string, { examples?: Record<string, unknown> }>;
        };
        const json = resolved.content?.['application/json'];
        return json ? [Object.keys(json.examples ?? {}).length] : [];
      });
      expect(
        examples.every((count) => count > 0),
        op.operationId,
      ).toBe(true);
    }
    const sampled = operations.filter((op) => (op as { 'x-codeSamples'?: unknown[] })['x-codeSamples']?.length);
    expect(sampled.map((op) => op.operationId)).toEqual(
      expect.arrayContaining(['listEvents', 'createEvent', 'getEvent', 'patchEvent', 'deleteEvent', 'listVenues']),
    );
  });

  // The rendered reference shows each error tab with its own example, and generated clients learn
  // that any operation may answer 500 or 503 and that every error carries the RateLimit fields.
  it('gives every error answer an example of its own that its schema takes, with its status', () => {
    const document = loadDocument() as unknown as {
      components: {
        responses: Record<string, { description: string; headers?: object; content?: Record<string, JsonContent> }>;
      };
    };
    const ajv = new Ajv2020({ strict: false });
    addFormats.default(ajv);
    const errorSchema = createBackend(loadDocument()).definition.components!.schemas!.RestError;
    const validate = ajv.compile(errorSchema);
    const statuses = new Map<string, Set<string>>();
    for (const op of operations) {
      for (const [status, answer] of Object.entries(op.responses ?? {})) {
        // The operations hold the answers resolved: a component is known by its description.
        const name = (answer as { description?: string }).description ?? '';
        statuses.set(name, (statuses.get(name) ?? new Set()).add(status));
      }
    }
    const seen = new Set<string>();
    for (const [name, answer] of Object.entries(document.components.responses)) {
      const json = answer.content?.['application/json'];
      if (!json) continue;
      const examples = Object.values(json.examples ?? {});
      expect(examples.length, name).toBeGreaterThan(0);
      for (const example of examples) {
        expect(validate(example.value), `${name}: ${JSON.stringify(validate.errors)}`).toBe(true);
        expect([...(statuses.get(answer.description) ?? [])], name).toContain(String(example.value.data.status));
        seen.add(example.value.code);
      }
      expect(Object.keys(answer.headers ?? {}), name).toEqual(
        expect.arrayContaining(['RateLimit', 'RateLimit-Policy']),
      );
    }
    expect(seen.size).toBeGreaterThanOrEqual(14);
    for (const op of operations) {
      expect(Object.keys(op.responses ?? {}), op.operationId).toEqual(expect.arrayContaining(['500', '503']));
    }
  });

  it("renders a curl command and a typed call for every operation, with the reader's URL in every sample and example", () => {
    const rendered = JSON.parse(fs.readFileSync('generated/doc/openapi.en.json', 'utf8')) as {
      paths: Record<string, Record<string, { operationId?: string; 'x-codeSamples'?: { label: string }[] }>>;
    };
    const labels = Object.values(rendered.paths).flatMap((item) =>
      Object.values(item)
        .filter((op) => op.operationId)
        .map((op) => [op.operationId, (op['x-codeSamples'] ?? []).map((sample) => sample.label)] as const),
    );
    expect(labels).toHaveLength(operations.length);
    for (const [id, names] of labels) expect(names, id).toEqual(expect.arrayContaining(['curl', 'openapi-fetch']));
    // The page's URLs are a placeholder the service fills in with each request's (src/openapi.ts).
    const page = fs.readFileSync('generated/doc/doc.en.html', 'utf8');
    expect(page).not.toContain('127.0.0.1:8080/wp-json/calendar/events/v1');
    const manifest = JSON.parse(fs.readFileSync('generated/doc/manifest.json', 'utf8')) as {
      serverPlaceholder: string;
    };
    expect(page).toContain(manifest.serverPlaceholder);
  });

  // The parts `_fields` answers are derived from the objects (scripts/lib/reshaped-answers.mjs).
  it('derives from each object answered a part that requires nothing, at any depth', () => {
    const schemas = (loadDocument() as unknown as { components: { schemas: Record<string, object> } }).components
      .schemas;
    const parts = Object.keys(schemas).filter((name) => name.endsWith('Part'));
    expect(parts).toEqual(expect.arrayContaining(['EventPart', 'EventListPart', 'VenuePart', 'TagListPart']));
    const requires = (node: unknown): boolean => {
      if (Array.isArray(node)) return node.some(requires);
      if (typeof node !== 'object' || node === null) return false;
      return Object.entries(node).some(
        ([key, value]) => (key === 'required' && Array.isArray(value)) || requires(value),
      );
    };
    for (const name of parts) expect(requires(schemas[name]), name).toBe(false);
    // ... and names only parts: a part of an event holds a part of its venue, not a whole venue.
    expect(JSON.stringify(schemas.EventPart)).not.toMatch(/"#\/components\/schemas\/Venue"/);
  });

  // What makes a document pleasant to generate clients from: readable type names and examples.
  it('gives every schema a title and examples, and names every object schema instead of nesting it', () => {
    const schemas = (loadDocument() as unknown as { components: { schemas: Record<string, Record<string, unknown>> } })
      .components.schemas;
    for (const [name, schema] of Object.entries(schemas)) {
      expect(schema.title, name).toBe(name);
      expect((schema.examples as unknown[] | undefined)?.length, `${name} has no examples`).toBeGreaterThan(0);
    }
    const inline: string[] = [];
    const walk = (node: unknown, path: string, root: boolean) => {
      if (Array.isArray(node)) {
        node.forEach((item, i) => {
          walk(item, `${path}/${i}`, false);
        });
        return;
      }
      if (!node || typeof node !== 'object') return;
      const schema = node as Record<string, unknown>;
      if (!root && schema.properties && [schema.type].flat().includes('object')) inline.push(path);
      for (const [key, value] of Object.entries(schema))
        if (key !== 'examples' && key !== 'example') walk(value, `${path}/${key}`, false);
    };
    for (const [name, schema] of Object.entries(schemas)) walk(schema, `#/components/schemas/${name}`, true);
    walk((loadDocument() as { paths: unknown }).paths, '#/paths', false);
    expect(inline).toEqual([]);
  });
});

interface JsonContent {
  examples?: Record<string, { value: { code: string; data: { status: number } } }>;
}
