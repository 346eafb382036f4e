import { describe, expect, it } from 'vitest';
import { handlers } from '../src/handlers/index.js';
import { createBackend } from '../src/http/backend.js';
import { loadDocument } from '../src/openapi.js';

describe('the contract', () => {
  const operations = createBackend(loadDocument()).router.getOperations();

  it('has operations for every route and method of the specification, the change feed and webhooks', () => {
    expect(operations.length).toBe(64);
    expect(operations.map((op) => op.operationId)).toEqual(
      expect.arrayContaining([
        'listChanges',
        'createWebhook',
        'pingWebhook',
        'rotateWebhookSecret',
        'listWebhookDeliveries',
      ]),
    );
  });

  it('has a handler for every operation of the bundle, and no handler without an operation', () => {
    const ids = operations.map((op) => op.operationId).sort();
    expect(Object.keys(handlers).sort()).toEqual(ids);
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
      expect(examples.every((count) => count > 0), op.operationId).toBe(true);
    }
    const sampled = operations.filter((op) => (op as { 'x-codeSamples'?: unknown[] })['x-codeSamples']?.length);
    expect(sampled.map((op) => op.operationId)).toEqual(
      expect.arrayContaining(['listEvents', 'createEvent', 'getEvent', 'patchEvent', 'deleteEvent', 'listVenues']),
    );
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
