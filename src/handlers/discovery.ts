import type { Call, Reply } from '../http/handler.js';
import { notImplemented } from '../http/errors.js';
import { loadDocument } from '../openapi.js';

/** The document as JSON, its `servers` pointing at the base URL the request came in on. */
export async function getDocumentation(call: Call<'getDocumentation'>): Promise<Reply> {
  return { body: { ...loadDocument(), servers: [{ url: call.urls.base }] } };
}

export async function getNamespaceIndex(): Promise<Reply> {
  throw notImplemented(); // issue: discovery and documentation
}
