// Code samples for the rendered reference: every operation gets a curl command and a call through a
// typed client (openapi-fetch with the types openapi-typescript writes), built from the document
// itself (method, path, the path's example values, the request body's first example, whether it
// needs an account), so that no operation is left without one and none disagrees with the document.
// Samples written by hand in the document (openapi/paths/*.yaml) come first and are kept.
import { resolveRef } from './resolve-ref.mjs';

const METHODS = ['get', 'put', 'post', 'delete', 'patch'];

/** `base` is the namespace URL the samples call (the page replaces it with the reader's). */
export function addCodeSamples(document, base) {
  for (const [path, item] of Object.entries(document.paths ?? {})) {
    for (const method of METHODS) {
      const operation = item[method];
      if (operation) operation['x-codeSamples'] = codeSamples(document, base, { path, item, method, operation });
    }
  }
  return document;
}

/** The samples of one operation: those written by hand, then curl (unless written) and openapi-fetch. */
function codeSamples(document, base, { path, item, method, operation }) {
  const pathValues = pathExamples(document, item, operation);
  const body = requestExample(document, operation.requestBody);
  const signedIn = !(operation.security ?? document.security ?? []).some((s) => Object.keys(s).length === 0);
  const samples = operation['x-codeSamples'] ?? [];
  if (!samples.some((sample) => sample.label === 'curl')) {
    samples.push({
      lang: 'Shell',
      label: 'curl',
      source: curl(method, base + fill(path, pathValues), body, signedIn),
    });
  }
  samples.push({
    lang: 'TypeScript',
    label: 'openapi-fetch',
    source: typedCall(method, path, pathValues, body, signedIn, base, answersJson(document, operation)),
  });
  return samples;
}

/** An example value for each path parameter of an operation, by name. */
function pathExamples(document, item, operation) {
  const parameters = [...(item.parameters ?? []), ...(operation.parameters ?? [])].map((p) => resolveRef(document, p));
  return Object.fromEntries(
    parameters.filter((p) => p.in === 'path').map((p) => [p.name, p.example ?? exampleOf(document, p.schema)]),
  );
}

/** Whether what the operation answers when it succeeds is JSON: its first 2xx answer's first media type. */
function answersJson(document, operation) {
  const success = Object.entries(operation.responses ?? {}).find(([status]) => status.startsWith('2'));
  return Object.keys(resolveRef(document, success?.[1]).content ?? {})[0]?.endsWith('json') ?? true;
}

function exampleOf(document, schema) {
  const resolved = resolveRef(document, schema);
  return resolved.examples?.[0] ?? resolved.example ?? (resolved.type === 'integer' ? 1 : 'value');
}

function requestExample(document, requestBody) {
  const content = resolveRef(document, requestBody)?.content?.['application/json'];
  if (!content) return undefined;
  const first = Object.values(content.examples ?? {})[0];
  return first ? resolveRef(document, first).value : content.example;
}

const fill = (path, values) => path.replace(/\{([^{}]+)\}/g, (_, name) => encodeURIComponent(String(values[name])));

/** A value as a shell word in single quotes. */
const quoted = (text) => `'${text.replaceAll("'", `'\\''`)}'`;

function curl(method, url, body, signedIn) {
  const lines = [`curl${method === 'get' ? '' : ` -X ${method.toUpperCase()}`} ${quoted(url)}`];
  if (signedIn) lines.push(`-u maria:'<application password>'`);
  if (body !== undefined) lines.push(`-H 'Content-Type: application/json'`, `-d ${quoted(JSON.stringify(body))}`);
  return lines.join(' \\\n  ') + '\n';
}

function typedCall(method, path, pathValues, body, signedIn, base, json) {
  const options = [];
  // An answer that is not JSON (an iCalendar feed) is read as text.
  if (!json) options.push(`parseAs: 'text'`);
  if (Object.keys(pathValues).length) options.push(`params: { path: ${JSON.stringify(pathValues)} }`);
  if (body !== undefined) options.push(`body: ${JSON.stringify(body, null, 2).replaceAll('\n', '\n  ')}`);
  const headers = signedIn ? ', headers: { Authorization: `Bearer ${process.env.CALENDAR_TOKEN}` }' : '';
  return [
    `// npx openapi-typescript ${base}/doc -o calendar-api.d.ts`,
    `import createClient from 'openapi-fetch';`,
    `import type { paths } from './calendar-api';`,
    ``,
    `const client = createClient<paths>({ baseUrl: '${base}'${headers} });`,
    `const { data, error, response } = await client.${method.toUpperCase()}('${path}'${options.length ? `, {\n  ${options.join(',\n  ')},\n}` : ''});`,
    ``,
  ].join('\n');
}
