// The namespace index and this document, in the language of the locale segment (English when we
// have no translation), saying which in `Content-Language`.
import { namespaceRoutes } from '../discovery/namespace-index.js';
import { ApiError } from '../http/errors.js';
import type { Call, Reply } from '../http/handler.js';
import { NAMESPACE } from '../http/urls.js';
import { documentLanguage, documentPage, localizedDocument } from '../openapi.js';

// The page's scripts and styles are inline; it may load nothing from anywhere else.
const PAGE_POLICY =
  "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src 'self' data:; font-src data:; worker-src blob:; connect-src 'self'";

/** The document as JSON, its `servers` pointing at the base URL the request came in on; or its page. */
export function getDocumentation(call: Call<'getDocumentation'>): Promise<Reply> {
  const language = documentLanguage(call.locale);
  const headers = { 'Content-Language': language, Vary: call.localeFromPath ? 'Accept' : 'Accept, Accept-Language' };
  if (call.accepts(['application/json', 'text/html']) === 'text/html') {
    return Promise.resolve({
      body: documentPage(language, call.urls.base),
      contentType: 'text/html; charset=utf-8',
      headers: { ...headers, 'Content-Security-Policy': PAGE_POLICY },
    });
  }
  return Promise.resolve({ body: { ...localizedDocument(language), servers: [{ url: call.urls.base }] }, headers });
}

export function getNamespaceIndex(call: Call<'getNamespaceIndex'>): Promise<Reply> {
  if (call.query.namespace !== NAMESPACE) {
    return Promise.reject(new ApiError(404, 'rest_invalid_namespace', 'The specified namespace could not be found.'));
  }
  const language = documentLanguage(call.locale);
  const body = {
    namespace: NAMESPACE,
    routes: namespaceRoutes(localizedDocument(language), call.urls, call.config.siteTimezone, call.context.now),
    _links: { up: [{ href: `${call.urls.root}/` }] },
  };
  const headers: Record<string, string> = { 'Content-Language': language };
  if (!call.localeFromPath) headers.Vary = 'Accept-Language';
  return Promise.resolve({ body, headers });
}
