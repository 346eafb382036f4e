// WordPress's `_embed`: the answer comes with what its objects' embeddable `_links` point at, under
// `_embedded` of each object, so that a client gets an event and its venue in one request. Each link
// is followed as a GET of our own routes by the same caller (same credentials, same permissions,
// same validation); an object the caller may not read is embedded as the error it would get, as
// WordPress does. Links that several objects share (the same venue on a page of events) are followed
// once per answer.
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Request, Response } from 'express';
import type { OpenAPIBackend } from 'openapi-backend';
import type { OpenAPIV3_1 } from 'openapi-types';
import { toApiError } from './errors.js';
import type { Reply } from './handler.js';
import { isListEnvelope, isObject, responseOptions } from './wordpress-response.js';
import { normalizeQuery } from './query.js';

/** Every embeddable relation, or only these. */
export type Wanted = true | ReadonlySet<string>;

/**
 * What `_embed` asks for in a raw query string: nothing (absent), all relations (no value, `1`,
 * `true`, or `0` as WordPress reads it), or the relations listed. `_fields` without `_embedded`
 * drops `_embedded` from the answer, so nothing is fetched; `_fields=_embedded.venue` narrows it.
 */
export function wantedRelations(search: string): Wanted | undefined {
  const query = new URLSearchParams(search);
  const value = query.get('_embed');
  if (value === null) return undefined;
  const listed = value
    .split(',')
    .map((rel) => rel.trim())
    .filter(Boolean);
  let wanted: Wanted = ['', '0', '1', 'true'].includes(value.trim()) || !listed.length ? true : new Set(listed);
  const { fields } = responseOptions(search);
  if (fields) {
    const named = fields._embedded;
    if (named === undefined) return undefined;
    if (named !== true) {
      const rels = Object.keys(named);
      wanted = new Set(wanted === true ? rels : rels.filter((rel) => wanted !== true && wanted.has(rel)));
    }
  }
  return wanted;
}

/** Follows one link: what a GET of it answers (the items of a list), or the error it answers. */
export type Follow = (href: string) => Promise<unknown>;

// Links followed at once: enough to overlap round trips, few enough to leave the pool to others.
const CONCURRENCY = 4;
/**
 * Distinct links followed for one answer: a page of 50 events has 100 term lists alone, and every
 * link is a query, so one anonymous request must not become thousands. Past it, links are embedded
 * as an error that says why.
 */
export const MAX_EMBEDDED_LINKS = 150;
const OVER_LIMIT = {
  code: 'rest_embed_limit',
  message: `Only ${MAX_EMBEDDED_LINKS} links of an answer are embedded: ask for fewer items, or name the relations in _embed.`,
  data: { status: 400 },
};

/** The body with `_embedded` after `_links` on each object (each item of a list) that has some. */
export async function embedLinks(
  body: unknown,
  wanted: Wanted,
  follow: Follow,
  // Told how many links are to be followed before the first is: each costs the caller a read.
  charge: (links: number) => Promise<void> = () => Promise.resolve(),
): Promise<unknown> {
  const objects = linkingObjects(body);
  const plans = objects.map((object) => ({ object, rels: embeddable(object, wanted) }));
  const hrefs = [...new Set(plans.flatMap(({ rels }) => rels.flatMap(([, links]) => links)))];
  const answers = new Map<string, unknown>(hrefs.slice(MAX_EMBEDDED_LINKS).map((href) => [href, OVER_LIMIT]));
  const followed = hrefs.slice(0, MAX_EMBEDDED_LINKS);
  await charge(followed.length);
  for (let i = 0; i < followed.length; i += CONCURRENCY) {
    const batch = followed.slice(i, i + CONCURRENCY);
    // Each on a turn of its own: the first GET of an operation compiles its validators, which
    // four at once would do in one stretch of the event loop.
    const results = await Promise.all(
      batch.map(async (href) => {
        await nextTurn();
        return follow(href);
      }),
    );
    batch.forEach((href, j) => answers.set(href, results[j]));
  }
  for (const { object, rels } of plans) {
    if (!rels.length) continue;
    object._embedded = Object.fromEntries(rels.map(([rel, links]) => [rel, links.map((href) => answers.get(href))]));
  }
  return body;
}

/** The objects of a body that may carry links: the body, or the items of a list. */
function linkingObjects(body: unknown): Record<string, unknown>[] {
  if (!isObject(body)) return [];
  if (!isListEnvelope(body)) return [body];
  return Object.values(body).flatMap((value) => (Array.isArray(value) ? value.filter(isObject) : []));
}

/** The object's embeddable links that are wanted, by relation. */
function embeddable(object: Record<string, unknown>, wanted: Wanted): [string, string[]][] {
  const links = object._links;
  if (!isObject(links)) return [];
  const rels: [string, string[]][] = [];
  for (const [rel, list] of Object.entries(links)) {
    if (!Array.isArray(list) || (wanted !== true && !wanted.has(rel))) continue;
    const hrefs = list
      .filter((link): link is { href: string } => isObject(link) && link.embeddable === true)
      .map((link) => link.href);
    if (hrefs.length) rels.push([rel, hrefs]);
  }
  return rels;
}

/**
 * Follows links of this API (those under `base`) as GETs through the backend, with the request's
 * caller: the security handlers find the caller authenticated once per request (http/security.ts).
 * A refusal becomes the error body; a server error (the database gone) fails the whole answer.
 */
export function followThrough(api: OpenAPIBackend, base: string, req: Request, res: Response): Follow {
  return async (href) => {
    if (!href.startsWith(`${base}/`)) return null;
    const rest = href.slice(base.length);
    const at = rest.indexOf('?');
    const path = at < 0 ? rest : rest.slice(0, at);
    const operation = api.router.matchOperation({ method: 'GET', path, headers: {} });
    if (!operation) return null;
    try {
      const query = normalizeQuery(
        at < 0 ? '' : rest.slice(at + 1),
        operation.parameters as OpenAPIV3_1.ParameterObject[],
      );
      const reply = (await api.handleRequest({ method: 'GET', path, query, headers: {} }, req, res)) as Reply;
      if (reply.contentType) return null;
      const answer = reply.body;
      return isObject(answer) && isListEnvelope(answer)
        ? Object.values(answer).find((value) => Array.isArray(value))
        : answer;
    } catch (err) {
      const error = toApiError(err);
      if (error.status >= 500) throw err;
      return error.toBody();
    }
  };
}
