// A VEVENT's lines as lenient calendar readers take them, before ical.js reads them: other programs
// break RFC 5545 in common ways (Outlook's misplaced quote, 8-digit dates without VALUE=DATE, spaces
// inside a RRULE), and a line that still cannot be read is left out with a remark rather than
// costing the event (read-event.ts), unless it is its DTSTART.
import ICAL from 'ical.js';

/**
 * The VEVENT parsed, as written when ical.js reads it and each of its values; else line by line, a
 * line it cannot read (no colon, a value of the wrong type) left out with a remark, or, for
 * DTSTART, refused with its error.
 */
export function parsed(block: string, remarks: string[]): ICAL.Component {
  const lines = block
    .split('\r\n')
    .map(lenient)
    .filter((line) => line);
  const read = (text: string) => {
    const component = new ICAL.Component(ICAL.parse(text) as unknown[]);
    // ical.js reads a value when it is asked for: ask for each, so that a wrong one shows here.
    for (const property of component.getAllProperties()) property.getValues();
    return component;
  };
  try {
    return read(lines.join('\r\n'));
  } catch {
    // Read again below, without the lines that cannot be read.
  }
  const kept = lines.filter((line) => {
    if (/^(?:BEGIN|END):/i.test(line)) return true;
    try {
      read(`BEGIN:VEVENT\r\n${line}\r\nEND:VEVENT`);
      return true;
    } catch (err) {
      const name = propertyName(line);
      const why = err instanceof Error ? err.message : String(err);
      if (name === 'DTSTART') {
        throw new Error(`Its DTSTART is not a date or a date-time (RFC 5545 3.3.4, 3.3.5): ${why}.`, { cause: err });
      }
      remarks.push(`a ${name || 'line'} that cannot be read (RFC 5545 3.1) was left out`);
      return false;
    }
  });
  return read(kept.join('\r\n'));
}

/** A line's property name, upper-cased ('' when it has none). */
const propertyName = (line: string) => /^[A-Za-z0-9-]+/.exec(line)?.[0].toUpperCase() ?? '';

/** Properties whose values may be dates; written `DTSTART:20220101` they are dates all the same. */
const DATED = new Set(['DTSTART', 'DTEND', 'RECURRENCE-ID', 'EXDATE', 'RDATE']);

/**
 * A line as lenient readers take it: a date property whose values are all 8 digits, without
 * VALUE=DATE, holds dates (ical.js would read `2022-01-01T::`, an invalid time); spaces and empty
 * parts inside a RRULE (`BYDAY=MO, TU`, a trailing `;`) go; an EXDATE or RDATE without values goes.
 */
function lenient(given: string): string {
  const line = closedQuote(given);
  const name = propertyName(line);
  if (name === 'RRULE') {
    const colon = line.indexOf(':');
    const parts = line
      .slice(colon + 1)
      .replace(/[ \t]+/g, '')
      .split(';');
    return `${line.slice(0, colon + 1)}${parts.filter(Boolean).join(';')}`;
  }
  if (!DATED.has(name)) return line;
  const colon = line.indexOf(':');
  if (colon < 0) return line;
  const params = line.slice(name.length, colon);
  const value = line.slice(colon + 1).trim();
  if ((name === 'EXDATE' || name === 'RDATE') && !value) return '';
  if (/VALUE=/i.test(params) || !/^[0-9]{8}(?:,[0-9]{8})*$/.test(value)) return line;
  return `${name}${params};VALUE=DATE:${value}`;
}

/**
 * Outlook sometimes closes a quoted TZID after the value (`DTSTART;TZID="W. Europe Standard
 * Time:20200609T090000"`): the quote is put back before the value's colon.
 */
function closedQuote(line: string): string {
  if (!line.endsWith('"')) return line;
  const open = line.lastIndexOf('"', line.length - 2);
  if (open < 0 || line.slice(0, open).includes(':')) return line;
  const inner = line.slice(open + 1, -1);
  const colon = inner.lastIndexOf(':');
  const value = inner.slice(colon + 1);
  if (colon < 0 || !/^[0-9]{8}(?:T[0-9]{6}Z?)?$/.test(value)) return line;
  return `${line.slice(0, open + 1)}${inner.slice(0, colon)}":${value}`;
}

/**
 * Whether a VEVENT parsed already (read-calendar.ts ParsedCalendar) is what `parsed` would make of
 * its text: no line of it is one `lenient` changes, and each value reads.
 */
export function asWritten(block: string, component: ICAL.Component): boolean {
  if (block.split('\r\n').some((line) => lenient(line) !== line)) return false;
  try {
    for (const property of component.getAllProperties()) property.getValues();
    return true;
  } catch {
    return false;
  }
}
