// If-Match and If-None-Match (RFC 9110 13.1) as every door reads them: the REST API
// (http/conditional.ts), CalDAV's reads (caldav/routes.ts) and its writes
// (services/calendar-objects/write.ts).

/** `If-Match` / `If-None-Match`: `*`, or the listed entity tags (quoted, weak ones with `W/`). */
export function parseTags(header: string | string[] | undefined): '*' | string[] | undefined {
  if (header === undefined) return undefined;
  const text = [header].flat().join(',').trim();
  if (text === '*') return '*';
  return text.match(/(?:W\/)?"[^"]*"/g) ?? [];
}

/** Whether If-None-Match lets a read or write through (weak comparison: `W/` does not matter); absent, it does. */
export function noneMatch(header: string | string[] | undefined, etag: string): boolean {
  const tags = parseTags(header);
  if (tags === undefined) return true;
  if (tags === '*') return false;
  return !tags.some((tag) => tag.replace(/^W\//, '') === etag);
}

/** Whether If-Match holds for a representation with this ETag, or none (strong comparison: weak tags never match). */
export function ifMatchHolds(header: string | string[] | undefined, etag: string | undefined): boolean {
  const tags = parseTags(header);
  if (tags === undefined) return true;
  if (etag === undefined) return false;
  return tags === '*' || tags.includes(etag);
}
