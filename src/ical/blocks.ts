// An iCalendar file at the level of its bytes: lines unfolded in place, and where each VEVENT and
// VTIMEZONE block begins and ends, without turning the file into text or lines. A file of any
// size then costs its bytes and two numbers per block; each block is decoded when it is read
// (read-calendar.ts), and again when it is written.

/** A block of the file: its byte range, and why it is not whole, when it is not. */
export interface Block {
  start: number;
  end: number;
  broken?: string;
}

/** Blocks of one kind, as plain numbers: a file may hold millions. */
export class BlockList {
  private readonly starts: number[] = [];
  private readonly ends: number[] = [];
  private readonly broken = new Map<number, string>();

  get length(): number {
    return this.starts.length;
  }

  push(block: Block): void {
    if (block.broken) this.broken.set(this.starts.length, block.broken);
    this.starts.push(block.start);
    this.ends.push(block.end);
  }

  at(index: number): Block {
    const broken = this.broken.get(index);
    return { start: this.starts[index], end: this.ends[index], ...(broken ? { broken } : {}) };
  }
}

export interface Blocks {
  /** Whether the file says it is a calendar (BEGIN:VCALENDAR). */
  calendar: boolean;
  events: BlockList;
  timezones: BlockList;
  /** The calendar's X-WR-TIMEZONE (Google and Apple write it), which dates and floating times are in. */
  zone?: string;
}

const CR = 13;
const LF = 10;

/**
 * The bytes with their lines unfolded (a line break, CRLF, LF or a lone CR, then one space or tab,
 * is removed), in place: the bytes are the caller's to give up. On the bytes, not the text, because
 * a fold may fall inside a character's bytes. A byte order mark at the start goes too.
 */
export function unfold(bytes: Uint8Array): Uint8Array {
  let n = 0;
  const bom = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
  for (let i = bom; i < bytes.length; i++) {
    const size = lineBreakSize(bytes, i);
    const next = bytes[i + size];
    if (size && (next === 32 || next === 9)) {
      i += size; // the line break, and the one space or tab after it (the loop's step)
      continue;
    }
    bytes[n++] = bytes[i];
  }
  return bytes.subarray(0, n);
}

/** How many bytes the line break at `i` takes (CRLF 2, a lone CR or LF 1), or 0 when `i` is no line break. */
function lineBreakSize(bytes: Uint8Array, i: number): number {
  if (bytes[i] === CR) return bytes[i + 1] === LF ? 2 : 1;
  if (bytes[i] === LF) return 1;
  return 0;
}

/** One line: where it starts, where its text ends, and where the next starts. */
interface Line {
  start: number;
  end: number;
  next: number;
}

/** The lines of unfolded bytes. */
function* lines(bytes: Uint8Array): Generator<Line> {
  for (let start = 0; start < bytes.length;) {
    let end = start;
    while (end < bytes.length && bytes[end] !== CR && bytes[end] !== LF) end++;
    const next = bytes[end] === CR && bytes[end + 1] === LF ? end + 2 : end + 1;
    yield { start, end, next };
    start = next;
  }
}

const decoder = new TextDecoder();

/** The BEGIN or END a line holds, upper-cased (`BEGIN:VEVENT`), or undefined for any other line. */
function marker(bytes: Uint8Array, start: number, end: number): { begins?: string; ends?: string } | undefined {
  // Only a short line that starts with B or E (in any case) can be one: the others are not decoded.
  const first = bytes[start] | 0x20;
  if (end - start > 80 || (first !== 0x62 && first !== 0x65)) return undefined;
  const line = decoder.decode(bytes.subarray(start, end)).trim().toUpperCase();
  if (line.startsWith('BEGIN:')) return { begins: line.slice(6).trim() };
  if (line.startsWith('END:')) return { ends: line.slice(4).trim() };
  return undefined;
}

const TOP = new Set(['VEVENT', 'VTIMEZONE']);

const X_WR_TIMEZONE = 'X-WR-TIMEZONE';

/** The value of a calendar's `X-WR-TIMEZONE:` line (short lines starting with X only are decoded). */
function calendarZone(bytes: Uint8Array, start: number, end: number): string | undefined {
  if ((bytes[start] | 0x20) !== 0x78 || end - start > 200) return undefined;
  const line = decoder.decode(bytes.subarray(start, end));
  const colon = line.indexOf(':');
  if (colon < 0 || line.slice(0, colon).split(';')[0].trim().toUpperCase() !== X_WR_TIMEZONE) return undefined;
  return line.slice(colon + 1).trim() || undefined;
}

/** A block being read: its kind, where it starts, and the components open in it, outermost first. */
interface OpenBlock {
  kind: string;
  start: number;
  open: string[];
}

/** Why a block that was never ended is broken. */
const unended = (block: OpenBlock) => `it has no END:${block.open[0]} (RFC 5545 3.4: each BEGIN has its END)`;

/** Adds a block, ending at `end`, to the list of its kind. */
function addBlock(found: Blocks, block: OpenBlock, end: number, broken?: string): void {
  const range = { start: block.start, end, ...(broken ? { broken } : {}) };
  (block.kind === 'VEVENT' ? found.events : found.timezones).push(range);
}

/** A line outside any block: the block it begins, if any; else the calendar's zone, if it gives it. */
function outsideBlock(found: Blocks, bytes: Uint8Array, line: Line, begins?: string, ends?: string) {
  if (begins && TOP.has(begins)) return { kind: begins, start: line.start, open: [begins] };
  if (!begins && !ends) found.zone ??= calendarZone(bytes, line.start, line.end);
  return undefined;
}

/** A line inside a block: the block, still open, or undefined once this line has ended it. */
function insideBlock(found: Blocks, block: OpenBlock, line: Line, begins?: string, ends?: string) {
  if (begins) block.open.push(begins);
  else if (ends && block.open.includes(ends)) {
    while (block.open.pop() !== ends); // an inner component left open ends with its parent
    if (!block.open.length) {
      addBlock(found, block, line.next);
      return undefined;
    }
  }
  return block;
}

/**
 * The VEVENT and VTIMEZONE blocks of unfolded bytes. A block that another begins in, or that the
 * calendar's end closes, is broken (ical.js would read it without its END and swallow what follows).
 */
export function blocksOf(bytes: Uint8Array): Blocks {
  const found: Blocks = { calendar: false, events: new BlockList(), timezones: new BlockList() };
  let current: OpenBlock | undefined;
  let last = 0;
  for (const line of lines(bytes)) {
    last = line.next;
    const { begins, ends } = marker(bytes, line.start, line.end) ?? {};
    if (begins === 'VCALENDAR') found.calendar = true;
    if (current && ((begins && TOP.has(begins)) || ends === 'VCALENDAR')) {
      addBlock(found, current, line.start, unended(current));
      current = undefined;
    }
    current = current
      ? insideBlock(found, current, line, begins, ends)
      : outsideBlock(found, bytes, line, begins, ends);
  }
  if (current) addBlock(found, current, last, unended(current));
  return found;
}

/** A block's text, its lines joined with CRLF as ical.js reads them. */
export function blockText(bytes: Uint8Array, block: Block): string {
  return decoder
    .decode(bytes.subarray(block.start, block.end))
    .split(/\r\n|\r|\n/)
    .filter((line) => line.trim())
    .join('\r\n');
}
