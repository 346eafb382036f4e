// One VEVENT as a body of our API (with ical.js), read as lenient calendar readers read what other
// programs write: RFC 5545's rules are broken in common ways, and an event is refused only when it
// truly cannot be one (no start, a start that is no date); each refusal names the rule it broke,
// and each thing taken leniently is a remark in the summary (domain/external-items.ts, remarks).
// Its lines are repaired before they are read (line-repair.ts), its times read in their zones
// (zones.ts), its recurrence as the API's lines (read-recurrence.ts), what it names as items of
// their own (read-links.ts), its STATUS and CLASS as whose text it is says (status.ts), where it
// happens online (read-online.ts). An all-day event ends the day before its DTEND (RFC 5545 ends are
// exclusive).
import { createHash } from 'node:crypto';
import ICAL from 'ical.js';
import { escapeUTF8 } from 'entities';
import { DateTime } from 'luxon';
import type { ImportItem } from '../domain/external-items.js';
import { tidyLines } from '../lib/plain-text.js';
import { parsed } from './line-repair.js';
import { linksOf } from './read-links.js';
import { recurrenceLines } from './read-recurrence.js';
import { onlineOf } from './read-online.js';
import { EVENT_STATUS_PROPERTY, readStatus, STATUS_REASON_PROPERTY, type StatusReading } from './status.js';
import { fit, textOf, timeOf, xTextOf } from './values.js';
import { dateIn, type Reading, reading, type Zone, zoneOf, type Zones, wallClock } from './zones.js';

export interface EventRead {
  item: ImportItem;
  /** The venue (LOCATION), organizers (ORGANIZER) and categories (CATEGORIES) it names, keyed by name. */
  related: ImportItem[];
  sequence: number;
}

/** What reading one VEVENT needs of its door: how many items it may name of a kind, and whose text it is. */
export interface EventOptions {
  maxLinks: number;
  statuses: StatusReading;
}

/** The title of a VEVENT without SUMMARY (RFC 5545 does not require one), as calendar apps show it. */
export const NO_TITLE = '(No title)';

/**
 * The VEVENT, given as its text (its lines repaired, then parsed) or as the component a door
 * parsed already, when no line of it needs repair (read-calendar.ts).
 */
export function readEvent(source: string | ICAL.Component, zones: Zones, options: EventOptions): EventRead {
  const remarks: string[] = [];
  const component = typeof source === 'string' ? parsed(source, remarks) : source;
  const start = timeOf(component, 'dtstart');
  if (!start) throw new Error('It has no DTSTART (RFC 5545 3.6.1 requires one in a calendar without METHOD).');
  const title = fit(textOf(component, 'summary').trim());
  if (!title) remarks.push(`no SUMMARY: titled "${NO_TITLE}"`);
  const dated = outlookAllDay(component, start);
  const startAt = dated(reading(start, zones, remarks));
  const allDay = startAt.isDate;
  const endAt = dated(endOf(component, startAt, zones, remarks));
  const recurrence = recurrenceLines(component, zones, startAt, remarks);
  const zone = zoneOf(component, zones, startAt, recurrence, remarks);
  const { status, eventStatus } = readStatus(
    {
      status: textOf(component, 'status'),
      class: textOf(component, 'class'),
      eventStatus: xTextOf(component, EVENT_STATUS_PROPERTY),
    },
    options.statuses,
  );
  const url = textOf(component, 'url').trim();
  const body: Record<string, unknown> = {
    title: title || NO_TITLE,
    description: description(textOf(component, 'description'), remarks),
    start_date: allDay ? `${dateIn(startAt)} 00:00:00` : wallClock(startAt.instant, zone.name),
    end_date: allDay ? `${lastDay(startAt, endAt)} 23:59:59` : wallClock(endAt.instant, zone.name),
    timezone: zone.name,
    all_day: allDay,
    status,
    website: /^https?:\/\/\S+$/i.test(url) ? url : '',
    event_status: eventStatus,
    event_status_reason:
      eventStatus === 'scheduled' ? '' : fit(xTextOf(component, STATUS_REASON_PROPERTY).trim(), MAX_REASON),
    ...onlineOf(component),
  };
  const { related, refs } = linksOf(component, options.maxLinks, remarks);
  const sequence = Number(component.getFirstPropertyValue('sequence') ?? 0) || 0;
  const uid = identity(component, remarks);
  const label = title || NO_TITLE;
  const recurrenceId = timeOf(component, 'recurrence-id');
  if (recurrenceId) {
    const occurrenceOf = occurrenceOfSeries(uid, recurrenceId, zones, zone);
    const externalId = `${uid}#${recurrenceId.toString()}`;
    const item: ImportItem = { kind: 'event', externalId, label, body, refs, remarks, occurrenceOf };
    return { item, related, sequence };
  }
  const item: ImportItem = { kind: 'event', externalId: uid, label, body: { ...body, recurrence }, refs, remarks };
  return { item, related, sequence };
}

/** Which series a changed occurrence (RECURRENCE-ID) belongs to, and which of its starts it replaces. */
function occurrenceOfSeries(
  uid: string,
  recurrenceId: ICAL.Time,
  zones: Zones,
  zone: Zone,
): NonNullable<ImportItem['occurrenceOf']> {
  const original = reading(recurrenceId, zones, []);
  return {
    series: { kind: 'event', externalId: uid },
    // In the override's own zone for now; read-calendar.ts reads it in its series' zone.
    originalStart: original.isDate ? `${dateIn(original)} 00:00:00` : wallClock(original.instant, zone.name),
    ...(original.isDate ? {} : { instant: original.instant }),
    day: dateIn(original),
  };
}

/**
 * Outlook and Exchange write an all-day event as midnight to midnight in their zone, flagged
 * `X-MICROSOFT-CDO-ALLDAYEVENT:TRUE` (or `X-MICROSOFT-MSNCALENDAR-ALLDAYEVENT`), as calendar apps
 * read it: the days written are its days. Other readings are left as they are.
 */
function outlookAllDay(component: ICAL.Component, start: ICAL.Time): (r: Reading) => Reading {
  const flag = ['x-microsoft-cdo-alldayevent', 'x-microsoft-msncalendar-alldayevent'].some(
    (name) => String(component.getFirstPropertyValue(name) ?? '').toUpperCase() === 'TRUE',
  );
  const midnight = (time: ICAL.Time | undefined) =>
    !time || (time.hour === 0 && time.minute === 0 && time.second === 0);
  if (start.isDate || !flag || !midnight(start) || !midnight(timeOf(component, 'dtend'))) return (r) => r;
  return (r) => ({ ...r, isDate: true });
}

/**
 * The UID, or where there is none (older exports), an identity made of what names the event, its
 * DTSTART, SUMMARY and RECURRENCE-ID, so that importing the file again finds the same event.
 */
function identity(component: ICAL.Component, remarks: string[]): string {
  const uid = textOf(component, 'uid').trim();
  if (uid) return uid;
  remarks.push('no UID (RFC 5545 3.8.4.7): identified by its DTSTART and SUMMARY');
  const part = (name: string) => component.getFirstProperty(name)?.toICALString() ?? '';
  const hash = createHash('sha256')
    .update([part('dtstart'), textOf(component, 'summary').trim(), part('recurrence-id')].join('\n'))
    .digest('hex');
  return `no-uid:${hash.slice(0, 32)}`;
}

/**
 * The end: DTEND, else DTSTART plus DURATION, else a date lasts that day and a time no time (RFC
 * 5545 3.6.1). An end before the start, or past what a date can be, is left out with a remark.
 */
function endOf(component: ICAL.Component, start: Reading, zones: Zones, remarks: string[]): Reading {
  const none = () => later(start, new ICAL.Duration({ days: start.isDate ? 1 : 0 }));
  const end = timeOf(component, 'dtend');
  const duration = component.getFirstPropertyValue('duration');
  let at: Reading | undefined;
  if (end) at = reading(end, zones, remarks);
  else if (duration instanceof ICAL.Duration) {
    if (duration.isNegative) {
      remarks.push('a negative DURATION (RFC 5545 3.8.2.5) was left out');
      return none();
    }
    at = later(start, duration);
  }
  if (!at) return none();
  if (!(at.instant.getUTCFullYear() <= 9998)) {
    remarks.push('an end past the year 9998 was left out');
    return none();
  }
  if (at.instant < start.instant && !(start.isDate && at.isDate)) {
    remarks.push('a DTEND before DTSTART (RFC 5545 3.8.2.2) was left out');
    return none();
  }
  return at;
}

/**
 * The start plus a DURATION, its days as calendar days in the start's zone (RFC 5545, 3.3.6: P1D
 * across a change to summer time is 23 hours) and its time as elapsed time.
 */
function later(start: Reading, duration: ICAL.Duration): Reading {
  const days = duration.weeks * 7 + duration.days;
  const seconds = duration.hours * 3600 + duration.minutes * 60 + duration.seconds;
  // Floating times and dates are wall-clock readings kept as UTC; a converted zone has no rules here.
  const zone = start.zone.name && !start.zone.converted && !start.isDate ? start.zone.name : 'UTC';
  const at = DateTime.fromJSDate(start.instant, { zone }).plus({ days }).plus({ seconds });
  const date = { year: at.year, month: at.month, day: at.day };
  return { ...start, instant: at.isValid ? at.toJSDate() : new Date(NaN), date };
}

/** The longest reason the API takes (openapi/components/schemas/StatusReason.yaml). */
const MAX_REASON = 2000;

/** The longest description the API takes (openapi/components/schemas/Text.yaml). */
const MAX_TEXT = 65_535;

/** Plain text as the HTML our descriptions are, cut (with a remark) to what the API takes. */
function description(text: string, remarks: string[]): string {
  let given = text;
  let written = html(given);
  if (written.length > MAX_TEXT) remarks.push(`a DESCRIPTION longer than ${MAX_TEXT} characters was cut`);
  while (written.length > MAX_TEXT) {
    given = given.slice(0, Math.floor((given.length * MAX_TEXT) / written.length) - 1);
    written = html(given);
  }
  return written;
}

/** The last day of an all-day event: the day before its (exclusive) end, at least its first day. */
function lastDay(start: Reading, end: Reading): string {
  const first = DateTime.fromObject(start.date, { zone: 'UTC' });
  const after = end.isDate
    ? DateTime.fromObject(end.date, { zone: 'UTC' })
    : DateTime.fromJSDate(end.instant, { zone: 'UTC' }).startOf('day').plus({ days: 1 });
  const last = after.minus({ days: 1 });
  return (last < first ? first : last).toFormat('yyyy-MM-dd');
}

/** Plain text as the HTML our descriptions are: escaped, paragraphs and line breaks kept. */
function html(text: string): string {
  // Lines as the export gives them back (lib/plain-text.ts): no spaces at their ends, a line of
  // spaces an empty one, so that a round trip through iCalendar leaves the text as it was.
  const paragraphs = tidyLines(text.replace(/\r\n?/g, '\n'))
    .split(/\n{2,}/)
    .map((paragraph) => paragraph.trim())
    .filter(Boolean);
  return paragraphs.map((paragraph) => `<p>${escapeUTF8(paragraph).split('\n').join('<br />\n')}</p>`).join('\n');
}
