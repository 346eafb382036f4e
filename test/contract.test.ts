import { describe, expect, it } from 'vitest';
import { handlers } from '../src/handlers/index.js';
import { createBackend } from '../src/http/backend.js';
import { loadDocument } from '../src/openapi.js';

describe('the contract', () => {
  const operations = createBackend(loadDocument()).router.getOperations();

  it('has operations for every route and method of the specification', () => {
    expect(operations.length).toBe(52);
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
      expect(Object.keys(op.responses ?? {}).some((s) => s.startsWith('2')), op.operationId).toBe(true);
    }
  });
});
