// calendar-query (RFC 4791 7.8): which resources a filter matches, and calendar-data expanded into
// its occurrences (9.6.5). The filters clients send are a VCALENDAR holding a VEVENT, with or
// without a time range; a filter on another component matches nothing (this calendar holds events
// only), and property or text filters are refused as unsupported (CALDAV:supported-filter) rather
// than answered wrong. Expansion is ical.js's, the reader the import uses: its iterator applies the
// rule, EXDATEs and changed occurrences.
import ICAL from 'ical.js';
import { resourcesInRange } from '../services/calendar-objects/read.js';
import type { ServiceContext } from '../services/context.js';
import type { ServerResponse } from 'node:http';
import { DEFAULT_RECURRENCE, type RecurrenceLimits } from '../config/limits.js';
import { performance } from 'node:perf_hooks';
import { eachInSlices } from '../lib/slices.js';
import { ruleCost } from '../recurrence/cost.js';
import { walkProblem } from '../recurrence/walk-problem.js';
import { expansionSteps } from '../metrics/registry.js';
import { OverBudget } from './answer.js';
import { DavError, caldavCondition } from './errors.js';
import { CALDAV, child, childrenNamed, type XmlElement } from './xml.js';

export interface TimeRange {
  start?: Date;
  end?: Date;
}

/** What a filter asks: nothing (no VEVENT can match), every event, or events in a time range. */
export type EventFilter = { none: true } | { range?: TimeRange };

export function readFilter(filter: XmlElement | undefined): EventFilter {
  const calendar = child(filter, CALDAV, 'comp-filter');
  if (!filter || !calendar || attribute(calendar, 'name') !== 'VCALENDAR')
    throw unsupported('A calendar-query filters on a VCALENDAR comp-filter (RFC 4791 9.7).');
  if (child(calendar, CALDAV, 'is-not-defined')) return { none: true };
  refuseOther(calendar);
  const components = childrenNamed(calendar, CALDAV, 'comp-filter');
  if (!components.length) return {};
  if (components.length > 1 || attribute(components[0], 'name') !== 'VEVENT') return { none: true };
  const event = components[0];
  if (child(event, CALDAV, 'is-not-defined')) return { none: true };
  refuseOther(event);
  if (childrenNamed(event, CALDAV, 'comp-filter').length)
    throw unsupported('Filters on components inside a VEVENT (VALARM) are not supported.');
  const range = child(event, CALDAV, 'time-range');
  return range ? { range: timeRange(range) } : {};
}

const attribute = (element: XmlElement, name: string) => element.attributes[name]?.toUpperCase();

function refuseOther(element: XmlElement) {
  if (child(element, CALDAV, 'prop-filter') || child(element, CALDAV, 'param-filter'))
    throw unsupported('Property and parameter filters are not supported: ask for the events in a time range.');
}

const unsupported = (message: string) => new DavError(403, message, caldavCondition('supported-filter'));

/** A time-range's start and end, UTC date-times (RFC 4791 9.9). */
export function timeRange(element: XmlElement): TimeRange {
  const read = (name: string) => {
    const value = element.attributes[name];
    if (value === undefined) return undefined;
    const date = utcDateTime(value.trim());
    if (!date)
      throw new DavError(
        400,
        `A time-range ${name} is a UTC date-time such as 20260101T000000Z, in the years ${FIRST_YEAR} to ${LAST_YEAR}.`,
        caldavCondition('valid-filter'),
      );
    return date;
  };
  const range = { start: read('start'), end: read('end') };
  if (!range.start && !range.end)
    throw new DavError(400, 'A time-range has a start, an end or both.', caldavCondition('valid-filter'));
  if (range.start && range.end && range.start >= range.end)
    throw new DavError(400, 'A time-range starts before it ends.', caldavCondition('valid-filter'));
  return range;
}

/** Events (by their resource's ID) with a row in the range (services/calendar-objects/read.ts). */
export const idsInRange = (ctx: ServiceContext, range: TimeRange) =>
  resourcesInRange(ctx, range.start ?? new Date('0001-01-01T00:00:00Z'), range.end ?? new Date('9999-12-31T00:00:00Z'));

/** The years a time-range may name: PostgreSQL's timestamps have no year 0, and the service none past 9999. */
const FIRST_YEAR = 1;
const LAST_YEAR = 9999;

/** A UTC date-time as RFC 5545 writes it (`20260101T000000Z`), if it names a moment that exists. */
function utcDateTime(value: string): Date | undefined {
  const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(value);
  if (!m) return undefined;
  const [year, month, day, hour, minute, second] = m.slice(1).map(Number);
  if (year < FIRST_YEAR || year > LAST_YEAR) return undefined;
  // setUTCFullYear, unlike Date.UTC, takes the years 0 to 99 as they are.
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(hour, minute, second);
  const same =
    date.getUTCFullYear() === year &&
    date.getUTCMonth() === month - 1 &&
    date.getUTCDate() === day &&
    date.getUTCHours() === hour &&
    date.getUTCMinutes() === minute &&
    date.getUTCSeconds() === second;
  return same ? date : undefined;
}

/**
 * How often a walk adds its steps to their metric (a metric's inc is too dear for each step). The
 * clock and the client are looked at every step: one step of a rule stored before its INTERVAL was
 * bounded can take a second of ical.js's work, and a look at the clock costs some 50 ns.
 */
const COUNT_EVERY = 1000;

/**
 * What one request may expand: occurrences written, steps of the rules walked to find them, counted
 * inside ical.js's iterator (a Monday 29 February of an hourly rule is some 10,000 dates checked for
 * one start), and time. Past any of them the request is refused with CALDAV:max-instances (RFC 4791
 * 9.6.5) rather than answered in part; when the client goes away (`signal`), the walk stops.
 */
export class ExpansionBudget {
  private readonly left: { instances: number; steps: number };
  private readonly deadline: number;
  private uncounted = 0;

  constructor(
    private readonly limits: ExpansionLimits = DEFAULT_RECURRENCE,
    private readonly signal?: AbortSignal,
  ) {
    this.left = { instances: limits.expandInstances, steps: limits.expandSteps };
    this.deadline = performance.now() + limits.expandMs;
  }

  take(kind: 'instances' | 'steps') {
    if (--this.left[kind] < 0) throw this.refusal();
    if (kind !== 'steps') return;
    if (++this.uncounted === COUNT_EVERY) this.count();
    if (this.signal?.aborted) throw new DavError(499, 'The client closed the connection.');
    if (performance.now() > this.deadline) throw this.refusal('The walk took longer than that.');
  }

  /** Adds the steps taken since the last check to the metric (a metric's inc is too dear for each step). */
  count() {
    expansionSteps.inc(this.uncounted);
    this.uncounted = 0;
  }

  /** Refuses at once a walk that needs more steps than are left. */
  need(steps: number) {
    if (steps > this.left.steps) throw this.refusal(`Reaching the range takes ${steps} steps of the rule.`);
  }

  /** CALDAV:max-instances, naming the limits and, when known, why they do not suffice. */
  refusal(why = '') {
    const { expandInstances, expandSteps, expandMs } = this.limits;
    return new DavError(
      403,
      `An expansion writes at most ${expandInstances} occurrences and walks at most ${expandSteps} steps of the rules (${expandMs} ms) per request: ask for a shorter time range. ${why}`.trim(),
      caldavCondition('max-instances'),
    );
  }
}

type ExpansionLimits = Pick<RecurrenceLimits, 'expandInstances' | 'expandSteps' | 'expandMs'>;

/** Aborted when the response closes: its client went away, or it was sent. */
export function whileOpen(res: ServerResponse): AbortSignal {
  const closed = new AbortController();
  res.once('close', () => {
    closed.abort();
  });
  return closed.signal;
}

/**
 * The resource's text with its series expanded into the occurrences in the range: each a VEVENT
 * with the series' UID and its RECURRENCE-ID, times in UTC, no rule (RFC 4791 9.6.5). Each
 * occurrence copies its VEVENT, kept lines and all: past `room` bytes of them, OverBudget.
 */
export async function expand(text: string, range: TimeRange, budget: ExpansionBudget, room: number): Promise<string> {
  const calendar = new ICAL.Component(ICAL.parse(text) as unknown[]);
  for (const zone of calendar.getAllSubcomponents('vtimezone')) {
    const tz = new ICAL.Timezone(zone);
    if (!ICAL.TimezoneService.has(tz.tzid)) ICAL.TimezoneService.register(tz);
  }
  const vevents = calendar.getAllSubcomponents('vevent');
  const master = vevents.find((e) => !e.getFirstProperty('recurrence-id'));
  const out = new ICAL.Component('vcalendar');
  out.addPropertyWithValue('version', '2.0');
  out.addPropertyWithValue('prodid', String(calendar.getFirstPropertyValue('prodid') ?? ''));
  if (!master) return out.toString();
  const event = new ICAL.Event(master);
  for (const exception of vevents) if (exception !== master) event.relateException(exception);
  if (!event.isRecurring()) out.addSubcomponent(inUtc(master, undefined));
  else {
    try {
      for (const instance of await occurrences(event, range, budget, room)) out.addSubcomponent(instance);
    } catch (err) {
      if (err instanceof DavError || err instanceof OverBudget) throw err;
      // ical.js threw in its walk ("Same occurrence found twice"): this resource alone is refused.
      throw new Unwalkable(`ical.js cannot walk the rule: ${err instanceof Error ? err.message : String(err)}`);
    } finally {
      budget.count();
    }
  }
  return out.toString();
}

/**
 * A series whose rule ical.js cannot walk as the service reads it (recurrence/walk-problem.ts walkProblem;
 * only a rule stored before that check can be one): its resource is answered 403 on its own, the
 * rest of the report as usual.
 */
export class Unwalkable extends DavError {
  constructor(why: string) {
    super(403, `The series is not expanded: ${why}`, caldavCondition('valid-calendar-data'));
  }
}

/** An ICAL.Time's wall-clock reading as a Date whose UTC fields hold it (as recurrence/expand.ts reads starts). */
const wallClock = (time: ICAL.Time) =>
  new Date(Date.UTC(time.year, time.month - 1, time.day, time.hour, time.minute, time.second));

/**
 * The series' occurrences in the range, each a VEVENT of its own, within the budget; the rule is
 * walked a slice at a time (lib/slices.ts), so a long walk holds no other request up. A walk that
 * could not fit the budget is refused before it starts: a rule whose starts are too rare (a rule
 * stored before recurrence/cost.ts refused them), or a range further from the series' start than
 * the steps left reach.
 */
async function occurrences(
  event: ICAL.Event,
  range: TimeRange,
  budget: ExpansionBudget,
  room: number,
): Promise<ICAL.Component[]> {
  const from = range.start ? ICAL.Time.fromJSDate(range.start, true) : undefined;
  const to = range.end ? ICAL.Time.fromJSDate(range.end, true) : undefined;
  const dtstart = wallClock(event.startDate);
  for (const property of event.component.getAllProperties('rrule')) {
    const rule = property.getFirstValue() as ICAL.Recur;
    const why = ruleCost(rule.toString(), dtstart);
    if (why) throw budget.refusal(`The rule is not expanded: ${why}`);
    const problem = walkProblem(rule.toString(), dtstart);
    if (problem) throw new Unwalkable(problem);
    if (range.start && !rule.count) budget.need(stepsToReach(rule, event.startDate.toJSDate(), range.start));
  }
  const iterator = event.iterator();
  countSteps(iterator, budget);
  // Without changed occurrences, a start whose occurrence ends before the range needs no details
  // (the dearest part of a walk from a start years before the range).
  const before = from && !Object.keys(event.exceptions).length && !event.rangeExceptions.length;
  const length = event.duration;
  const instances: ICAL.Component[] = [];
  const sizes = new Map<ICAL.Component, number>();
  let bytes = 0;
  await eachInSlices(startsOf(iterator, to, budget), (next) => {
    if (before && endOf(next, length).compare(from) <= 0) return;
    const details: Occurrence = event.getOccurrenceDetails(next);
    if (from && details.endDate.compare(from) <= 0) return;
    if (to && details.startDate.compare(to) >= 0) return;
    budget.take('instances');
    const source = details.item.component;
    const instance = inUtc(source, details);
    // Each occurrence of a VEVENT is as long as its first, as written: without its RDATE and EXDATE lines.
    if (!sizes.has(source)) sizes.set(source, instance.toString().length);
    bytes += sizes.get(source) ?? 0;
    if (bytes > room) throw new OverBudget();
    instances.push(instance);
  });
  return instances;
}

/**
 * Counts each date the expansion's rule iterators check against their rule as a step of the
 * budget: ical.js has no hook for it, so each iterator's check_contracting_rules, which its walk
 * calls once per date it looks at, is wrapped. Its rule iterators are private to RecurExpansion's
 * types; a version that renamed them fails here and in the tests that count steps.
 */
function countSteps(iterator: ICAL.RecurExpansion, budget: ExpansionBudget) {
  const rules = (iterator as unknown as { ruleIterators?: ICAL.RecurIterator[] | null }).ruleIterators ?? [];
  if (!Array.isArray(rules)) throw new Error("ical.js's RecurExpansion no longer holds ruleIterators");
  for (const rule of rules) {
    const check = rule.check_contracting_rules.bind(rule);
    rule.check_contracting_rules = () => {
      budget.take('steps');
      return check();
    };
  }
}

/**
 * The fewest steps a walk of the rule from `dtstart` takes to reach `start`: one per period of its
 * FREQ and INTERVAL at least (a day, for an hourly rule with BYHOUR, which ical.js walks by its
 * hours; a week per BYDAY day for a weekly one).
 */
function stepsToReach(rule: ICAL.Recur, dtstart: Date, start: Date): number {
  if (rule.until && rule.until.toJSDate() < start) return 0;
  const hour = 3_600_000;
  const interval = rule.interval || 1;
  const days = rule.parts.BYDAY?.length ?? 1;
  const period = new Map<string, number>([
    ['HOURLY', rule.parts.BYHOUR ? 24 * hour : hour * interval],
    ['DAILY', 24 * hour * interval],
    ['WEEKLY', (168 * hour * interval) / days],
    ['MONTHLY', 31 * 24 * hour * interval],
    ['YEARLY', 366 * 24 * hour * interval],
  ]).get(rule.freq);
  return period ? Math.max(0, Math.floor((start.getTime() - dtstart.getTime()) / period)) : 0;
}

/** When an occurrence starting at `start` ends. */
function endOf(start: ICAL.Time, length: ICAL.Duration): ICAL.Time {
  const end = start.clone();
  end.addDuration(length);
  return end;
}

/** The rule's starts before `to`, each a step taken from the budget. */
function* startsOf(iterator: ICAL.RecurExpansion, to: ICAL.Time | undefined, budget: ExpansionBudget) {
  for (;;) {
    budget.take('steps');
    const next = nextOf(iterator);
    if (!next || (to && next.compare(to) >= 0)) return;
    yield next;
  }
}

/** The next start, or null past the last: RecurExpansion.next's types leave the null out. */
const nextOf = (iterator: ICAL.RecurExpansion): ICAL.Time | null => iterator.next();

/** A copy of the VEVENT as one occurrence, its times in UTC (dates stay dates) and without a rule. */
function inUtc(source: ICAL.Component, details: Occurrence | undefined): ICAL.Component {
  const copy = new ICAL.Component(JSON.parse(JSON.stringify(source.toJSON())) as unknown[]);
  for (const name of ['rrule', 'rdate', 'exdate', 'recurrence-id', 'dtstart', 'dtend', 'duration'])
    copy.removeAllProperties(name);
  const event = new ICAL.Event(source);
  const start = details ? details.startDate : event.startDate;
  const end = details ? details.endDate : event.endDate;
  copy.addPropertyWithValue('dtstart', utc(start));
  copy.addPropertyWithValue('dtend', utc(end));
  if (details) copy.addPropertyWithValue('recurrence-id', utc(details.recurrenceId));
  return copy;
}

/** What ical.js tells of one occurrence (its getOccurrenceDetails). */
interface Occurrence {
  startDate: ICAL.Time;
  endDate: ICAL.Time;
  recurrenceId: ICAL.Time;
  item: ICAL.Event;
}

const utc = (time: ICAL.Time) => (time.isDate ? time : time.convertToZone(ICAL.Timezone.utcTimezone));
