// What the reader's unit tests share: a calendar written line by line, and the items the reader
// makes of it (src/ical/read-calendar.ts), with its notes and the VEVENTs it could not read.
import ICAL from 'ical.js';
import type { ImportItem } from '../../../src/domain/external-items.js';
import { readCalendar, type ReadOptions } from '../../../src/ical/read-calendar.js';

/** A VCALENDAR of these lines (VEVENTs and VTIMEZONEs included), CRLF-ended as RFC 5545 writes it. */
export const calendar = (...lines: string[]) =>
  ['BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//test//unit//EN', ...lines, 'END:VCALENDAR', ''].join('\r\n');

/** A VEVENT's lines. */
export const vevent = (...lines: string[]) => ['BEGIN:VEVENT', ...lines, 'END:VEVENT'];

const LIMITS: ReadOptions = { maxItems: 100, maxLinks: 20 };

/** The calendar read from its bytes: its items (series and single events first), notes and refusals. */
export function read(source: string | Uint8Array, options: Partial<ReadOptions> = {}, charset?: string) {
  const bytes = typeof source === 'string' ? Buffer.from(source) : source;
  const calendar = readCalendar(bytes, { ...LIMITS, ...options }, charset);
  return { items: [...calendar.batches()].flat(), notes: calendar.notes, unreadable: calendar.unreadable };
}

/** The calendar read as CalDAV reads a PUT: from the component its door parsed (caldav/resource-body.ts). */
export function readParsed(text: string, options: Partial<ReadOptions> = {}) {
  const root = new ICAL.Component(ICAL.parse(text) as unknown[]);
  const calendar = readCalendar({ text, root }, { ...LIMITS, ...options });
  return { items: [...calendar.batches()].flat(), notes: calendar.notes, unreadable: calendar.unreadable };
}

/** The only item of a calendar of one VEVENT. */
export function only(text: string): ImportItem {
  const { items, unreadable } = read(text);
  if (unreadable.length) throw new Error(unreadable.map((u) => u.reason).join(' '));
  if (items.length !== 1) throw new Error(`${items.length} items`);
  return items[0];
}
