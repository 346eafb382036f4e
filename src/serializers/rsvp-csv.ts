// An event's RSVPs as CSV (the document's RsvpCsv), written by csv-stringify: RFC 4180 quoting, and
// its `escape_formulas`, which prefixes a cell that starts with = + - @ TAB or CR with a single quote
// (OWASP's advice against CSV injection), text cells only: a negative number stays a number. UTF-8
// with a byte order mark, so that Excel reads names with accents right (docs/decisions.md, "RSVP").
import { pipeline, type Readable } from 'node:stream';
import { stringify } from 'csv-stringify';
import type { Rsvp } from '../../generated/prisma/client.js';
import { formatDateTime } from '../lib/dates.js';

export type CsvRsvp = Pick<
  Rsvp,
  'id' | 'name' | 'email' | 'guests' | 'answer' | 'status' | 'checkInCode' | 'createdAt' | 'modifiedAt'
>;

const COLUMNS = ['id', 'name', 'email', 'guests', 'answer', 'status', 'check_in_code', 'created', 'modified'];

const record = (row: CsvRsvp) => [
  row.id,
  row.name,
  row.email,
  row.guests,
  row.answer,
  row.status,
  row.checkInCode,
  formatDateTime(row.createdAt, 'UTC'),
  formatDateTime(row.modifiedAt, 'UTC'),
];

/** The CSV text of the rows, as they are read from `rows` (a failure there ends the stream with it). */
export function rsvpCsv(rows: AsyncIterable<CsvRsvp>): Readable {
  const csv = stringify({
    header: true,
    columns: COLUMNS,
    bom: true,
    escape_formulas: true,
    record_delimiter: 'windows',
    // A line break inside a field is quoted whatever its kind, not only the CRLF that ends records.
    quoted_match: /[\r\n]/,
  });
  async function* records() {
    for await (const row of rows) yield record(row);
  }
  return pipeline(records, csv, () => undefined);
}
