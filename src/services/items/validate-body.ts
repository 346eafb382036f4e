// An imported item's body is checked against the document, as a request to the create or update
// operation of its kind would be (validation/, the validators the service's requests go through),
// so that the importer takes nothing the API would refuse: nothing about request shapes is written a
// second time here.
import type { OpenAPIBackend } from 'openapi-backend';
import { InvalidInput } from '../../domain/errors.js';
import { loadDocument } from '../../openapi.js';
import { createDocumentBackend } from '../../validation/document-backend.js';
import { type RequestProblem, requestProblem } from '../../validation/request-problems.js';
import type { ItemKind } from '../../domain/external-items.js';

const OPERATIONS: Record<ItemKind, { path: string; create: string; update: string }> = {
  event: { path: '/events', create: 'createEvent', update: 'updateEvent' },
  venue: { path: '/venues', create: 'createVenue', update: 'updateVenue' },
  organizer: { path: '/organizers', create: 'createOrganizer', update: 'updateOrganizer' },
  category: { path: '/categories', create: 'createCategory', update: 'updateCategory' },
  tag: { path: '/tags', create: 'createTag', update: 'updateTag' },
};

let backend: OpenAPIBackend | undefined;

/** What the document finds wrong with the body, in the words of the API's 400; undefined when nothing. */
export function bodyProblem(kind: ItemKind, body: Record<string, unknown>, localId?: number): string | undefined {
  backend ??= createDocumentBackend(loadDocument());
  const operation = OPERATIONS[kind];
  const result = backend.validator.validateRequest(
    {
      method: 'post',
      path: localId === undefined ? operation.path : `${operation.path}/${localId}`,
      headers: { 'content-type': 'application/json' },
      query: {},
      body,
    },
    localId === undefined ? operation.create : operation.update,
  );
  return result.valid ? undefined : problemReason(requestProblem(result.errors ?? []));
}

/** A problem as the message of the API's answer to it (http/validation.ts, http/errors.ts) says it. */
function problemReason(problem: RequestProblem): string {
  switch (problem.kind) {
    case 'path':
      return 'No route was found matching the URL and request method.';
    case 'missing':
      return `Missing parameter(s): ${problem.names.join(', ')}`;
    case 'invalid':
      return reasonOf(new InvalidInput(problem.params));
  }
}

/** An error of the services as one line: the message, or each field's complaint. */
export function reasonOf(err: Error): string {
  const fields = (err as { fields?: unknown }).fields;
  if (fields && typeof fields === 'object' && !Array.isArray(fields)) {
    return Object.entries(fields as Record<string, string>)
      .map(([field, problem]) => (problem.startsWith(field) ? problem : `${field}: ${problem}`))
      .join('; ');
  }
  return err.message;
}
