// Each operation's request body written out in the bundle, where openapi/ refers to a shared one in
// components/requestBodies: swagger-typescript-api 13 does not follow such a reference to the media
// types and sends JSON bodies without a Content-Type (415), and the document means the same either way.
const PREFIX = '#/components/requestBodies/';

export function inlineRequestBodies(document) {
  const shared = document.components?.requestBodies ?? {};
  for (const item of Object.values(document.paths)) {
    for (const operation of Object.values(item)) {
      const ref = operation?.requestBody?.$ref;
      if (typeof ref === 'string' && ref.startsWith(PREFIX)) {
        operation.requestBody = structuredClone(shared[ref.slice(PREFIX.length)]);
      }
    }
  }
  delete document.components.requestBodies;
  return document;
}
