// HTML (descriptions are stored as written, often `<p>…</p>`) to plain text, for iCalendar and
// schema.org: paragraphs and line breaks become newlines, tags go, entities are decoded (by
// `entities`, the decoder of the htmlparser2 family, which knows every named entity of HTML).
//
// This runs on every read of stored text, so it is one pass with no backtracking: the regular
// expressions it replaced (`<[^>]*>`, `[ \t]+\n`) took time growing with the square of the input,
// seconds of CPU for a 64 KiB description of `<` (test/unit/plain-text.test.ts). html-to-text was
// tried and not kept: its paragraph spacing and wrapping differ from the output clients already get.
import { decodeHTML } from 'entities';

/** Tags that end a line: `<br>` and the ends of blocks. */
const LINE_BREAK = /^(?:br\s*\/?|\/(?:p|div|li|h[1-6])\s*)$/i;
const BR = /^br\s*\/?$/i;

export function plainText(html: string): string {
  return tidyLines(decodeHTML(withoutTags(html)));
}

/** Drops every `<…>`; a `<` with no `>` after it is text, as are all the ones after it. */
function withoutTags(html: string): string {
  let out = '';
  let at = 0;
  while (at < html.length) {
    const open = html.indexOf('<', at);
    if (open < 0) break;
    const close = html.indexOf('>', open + 1);
    // No `>` anywhere after: the rest is text (and no later `<` can close either).
    if (close < 0) break;
    out += html.slice(at, open);
    const tag = html.slice(open + 1, close);
    at = close + 1;
    if (LINE_BREAK.test(tag)) out += '\n';
    // The line break written after a `<br>` in the source is the same break, not a second one:
    // `a<br />\nb` is two lines, not a blank line between them, which would grow on each round trip
    // through iCalendar (the importer writes a line break so). `</p>\n<p>` stays a blank line.
    if (BR.test(tag)) {
      if (html.startsWith('\r\n', at)) at += 2;
      else if (html[at] === '\n') at += 1;
    }
  }
  return out + html.slice(at);
}

/** No spaces or tabs before a line break, at most one empty line in a row, nothing around. */
export function tidyLines(text: string): string {
  const lines: string[] = [];
  let empty = 0;
  for (const line of text.split('\n')) {
    let end = line.length;
    while (end > 0 && (line[end - 1] === ' ' || line[end - 1] === '\t')) end--;
    const kept = line.slice(0, end);
    empty = kept === '' ? empty + 1 : 0;
    if (empty < 2) lines.push(kept);
  }
  return lines.join('\n').trim();
}
