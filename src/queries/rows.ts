// Rows that hand-written SQL returns as JSON (`to_jsonb(row)`), turned into the shape Prisma gives
// the same rows, so that code reading them does not know which way they came.

export type Json = Record<string, unknown>;

// Timestamps as JSON writes them: instants (`*_at`, `*_utc`) with an offset, wall-clock times
// (`*_local`, timestamp without zone) bare, which Prisma reads as UTC. The schema names every
// timestamp column so.
const isInstant = (column: string) => column.endsWith('_at') || column.endsWith('_utc');
const isWallClock = (column: string) => column.endsWith('_local');

const fieldNames = new Map<string, string>();
/** The Prisma field of a column: the schema maps every camelCase field to its snake_case column. */
function fieldName(column: string): string {
  let name = fieldNames.get(column);
  if (name === undefined) {
    name = column.replace(/_([a-z])/g, (_, letter: string) => letter.toUpperCase());
    fieldNames.set(column, name);
  }
  return name;
}

/** A text column's value: a Date for a timestamp (a wall-clock time read as UTC), else the text. */
function textField(column: string, value: string): string | Date {
  if (isInstant(column)) return new Date(value);
  return isWallClock(column) ? new Date(`${value}Z`) : value;
}

/** One table row: columns renamed to fields, timestamps to Dates; nested values are left as they are. */
export function record(columns: Json): Json {
  const fields: Json = {};
  for (const column in columns) {
    const value = columns[column];
    fields[fieldName(column)] = typeof value === 'string' ? textField(column, value) : value;
  }
  return fields;
}
