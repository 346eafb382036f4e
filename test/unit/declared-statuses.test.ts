// Every status the pipeline can give an operation is declared for it in the document, so that
// clients generated from it and contract tests know every answer. What each kind of operation can
// answer follows from where the statuses come from (src/app.ts, src/http/, src/auth/):
// - any operation: 400 (a Host that is no host, bad parameters or headers), 401 (wrong credentials
//   are refused on every route), 429 (the sign-in throttle), 503 (the database unavailable);
// - reads: 304 (every 200 carries an ETag and honours If-None-Match);
// - a body: 413 (too large), 415 (not JSON or a form);
// - a path variable: 404 (nothing by that ID, slug or namespace);
// - a role to write: 403; any write: 409 (a concurrent change that kept winning);
// - If-Match: 412; creates that take an Idempotency-Key: 409 and 422.
import { describe, expect, it } from 'vitest';
import { loadDocument } from '../../src/openapi.js';

const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

interface Operation {
  operationId: string;
  requestBody?: unknown;
  parameters?: { $ref?: string; name?: string; in?: string }[];
  responses: Record<string, unknown>;
  'x-required-role'?: string;
}

function expected(method: string, path: string, op: Operation): string[] {
  const statuses = ['400', '401', '429', '503'];
  const parameters = JSON.stringify(op.parameters ?? []);
  if (method === 'get') statuses.push('304');
  if (op.requestBody) statuses.push('413', '415');
  if (path.includes('{')) statuses.push('404');
  if (op['x-required-role']) statuses.push('403');
  if (method !== 'get') statuses.push('409');
  if (parameters.includes('If-Match') || parameters.includes('IfMatch')) statuses.push('412');
  if (op.operationId.startsWith('create') && parameters.includes('IdempotencyKey')) statuses.push('422');
  return [...new Set(statuses)].sort();
}

const document = loadDocument() as unknown as { paths: Record<string, Record<string, Operation>> };
const operations = Object.entries(document.paths).flatMap(([path, item]) =>
  METHODS.filter((m) => item[m]).map((method) => ({ path, method, op: item[method] })),
);

describe('declared statuses', () => {
  it('covers every operation', () => {
    expect(operations.length).toBeGreaterThan(40);
  });

  it.each(operations.map((o) => [o.op.operationId, o] as const))(
    '%s declares every status it can answer',
    (_id, { method, path, op }) => {
      const missing = expected(method, path, op).filter((status) => !(status in op.responses));
      expect(missing).toEqual([]);
    },
  );
});
