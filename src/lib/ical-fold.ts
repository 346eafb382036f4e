// RFC 5545 3.1: content lines longer than 75 octets are folded, a CRLF and a space before each
// continuation. ical-generator 10.2 folds the same way but measures each character with a new
// TextEncoder, which took seconds of the event loop for a feed of a few megabytes (issue in its
// tracker, fixed in its 11.x line, which needs Node 22); ical/write-calendar.ts folds with this instead.
// test/unit/ical-fold.test.ts checks that both give the same text.

/** Octets per line before a fold: 74 on the first line, and a space plus 74 on each continuation. */
const MAX_OCTETS = 74;

/** The text, its lines (CRLF-separated) folded at 75 octets, never inside a character. */
export function foldLines(text: string): string {
  return text.split('\r\n').map(foldLine).join('\r\n');
}

function foldLine(line: string): string {
  // Short lines of one-octet characters, the most of a calendar, need no look at each character.
  if (line.length <= MAX_OCTETS && isAscii(line)) return line;
  const parts: string[] = [];
  let start = 0;
  let octets = 0;
  for (let i = 0; i < line.length; i++) {
    const code = line.charCodeAt(i);
    const high = code >= 0xd800 && code <= 0xdbff && i + 1 < line.length;
    const size = utf8Octets(code, high);
    octets += size;
    if (octets > MAX_OCTETS) {
      parts.push(line.slice(start, i));
      start = i;
      octets = size;
    }
    if (high) i++;
  }
  parts.push(line.slice(start));
  return parts.join('\r\n ');
}

/** The octets of a character in UTF-8, by its first UTF-16 unit; `pair`: the first of a surrogate pair. */
function utf8Octets(code: number, pair: boolean): number {
  if (code < 0x80) return 1;
  if (code < 0x800) return 2;
  return pair ? 4 : 3;
}

function isAscii(text: string): boolean {
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) >= 0x80) return false;
  return true;
}
