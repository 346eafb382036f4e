// Conditional requests (RFC 9110). Every successful GET carries a strong ETag computed from the
// bytes it sends, so `If-None-Match` gives 304 whenever the representation is unchanged, whoever
// changed what it embeds. Events, venues, organizers and terms put their version (the modification
// time) in front of it: `If-Match` on an update or delete names that version, and the write claims it
// atomically, so of two editors who read the same version only the first one writes.
import { createHash } from 'node:crypto';
import { parseTags } from '../domain/entity-tags.js';
import type { Precondition } from '../domain/posts.js';

export { versionOf } from '../domain/posts.js';

export function entityTag(body: string | Buffer, version?: string): string {
  const digest = createHash('sha256').update(body).digest('base64url').slice(0, 22);
  return `"${version ? `${version}-` : ''}${digest}"`;
}

/** The versions named by If-Match's strong tags (weak tags never match If-Match). */
export function ifMatchPrecondition(header: string | string[] | undefined): Precondition | undefined {
  const tags = parseTags(header);
  if (tags === undefined) return undefined;
  if (tags === '*') return { versions: '*' };
  const strong = tags.filter((tag) => !tag.startsWith('W/'));
  const versions = strong
    .map((tag) => /^"([0-9a-z]{1,12})-/.exec(tag)?.[1])
    .filter((v): v is string => v !== undefined)
    .map((v) => new Date(parseInt(v, 36)))
    .filter((d) => !Number.isNaN(d.getTime()));
  return { versions };
}
