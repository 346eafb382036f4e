// An imported item's body is checked against the document, as a request to the create or update
// operation of its kind would be (http/backend.ts), so that the importer takes nothing the API
// would refuse: nothing about request shapes is written a second time here.
import type { OpenAPIBackend } from 'openapi-backend';
import { ApiError } from '../http/errors.js';
import { createBackend } from '../http/backend.js';
import { validationError } from '../http/validation.js';
import { loadDocument } from '../openapi.js';
import type { ItemKind } from './items.js';

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
  backend ??= createBackend(loadDocument());
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
  return result.valid ? undefined : reasonOf(validationError(result.errors ?? []));
}

/** An error of the API or of the services as one line: the message, and each field's complaint. */
export function reasonOf(err: Error): string {
  const fields =
    err instanceof ApiError ? (err.data as { params?: unknown }).params : (err as { fields?: unknown }).fields;
  if (fields && typeof fields === 'object' && !Array.isArray(fields)) {
    return Object.entries(fields as Record<string, string>)
      .map(([field, problem]) => (problem.startsWith(field) ? problem : `${field}: ${problem}`))
      .join('; ');
  }
  if (Array.isArray(fields)) return err.message;
  return err.message;
}
