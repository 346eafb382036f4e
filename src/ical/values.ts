// A VEVENT's property values as the reader takes them.
import ICAL from 'ical.js';

/** A property's first value as text ('' when it has none). */
export function textOf(component: ICAL.Component, name: string): string {
  const value = component.getFirstPropertyValue(name);
  if (typeof value === 'string') return value;
  if (value === null) return '';
  return String(value);
}

export function timeOf(component: ICAL.Component, name: string): ICAL.Time | undefined {
  const value = component.getFirstPropertyValue(name);
  if (value === null) return undefined;
  if (!(value instanceof ICAL.Time) || !Number.isFinite(value.toUnixTime())) {
    throw new Error(`Its ${name.toUpperCase()} is not a date or a date-time (RFC 5545 3.3.4, 3.3.5).`);
  }
  return value;
}

/**
 * A name cut to the 500 characters the API takes (openapi/components/schemas/Name.yaml), or to the
 * 200 of a category's (TermFields.yaml): a title, or a venue, organizer or category named by a long
 * LOCATION, CN or CATEGORIES, comes over shortened rather than costing its event.
 */
export const fit = (name: string, max = 500) => Array.from(name).slice(0, max).join('').trim();

/**
 * An X- property's first value as TEXT (RFC 5545 3.3.11): ical.js leaves the value of a property it
 * does not know escaped as written.
 */
export function xTextOf(component: ICAL.Component, name: string): string {
  return textOf(component, name.toLowerCase()).replace(/\\([\\;,nN])/g, (_, c: string) =>
    c === 'n' || c === 'N' ? '\n' : c,
  );
}
