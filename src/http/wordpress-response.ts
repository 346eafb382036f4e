// WordPress's global parameters that change the answer rather than the question:
// - `_fields=id,title,venue.venue`: only those fields (a dot names a field inside another; on a
//   list they name the fields of each item, and the list's links and totals stay);
// - `_envelope`: status 200 and `{body, status, headers}`, for clients that cannot read either.
// `_envelope` is declared on every operation of the document, `_fields` on every one that answers
// JSON (`x-wp-global`); scripts/lib/reshaped-answers.mjs describes the answers they give.

/** The fields a client asked for, as a tree: `id,venue.venue` is `{id: true, venue: {venue: true}}`. */
// Indexed by any name, so a lookup may find nothing.
interface FieldTree {
  [name: string]: FieldTree | true | undefined;
}

/** `_fields` and `_envelope` of a raw query string (after `?`). */
export function responseOptions(search: string): { fields?: FieldTree; envelope: boolean } {
  const query = new URLSearchParams(search);
  const names = query
    .getAll('_fields')
    .flatMap((value) => value.split(','))
    .map((name) => name.trim())
    .filter(Boolean);
  return { fields: names.length ? fieldTree(names) : undefined, envelope: query.has('_envelope') };
}

// Nodes have no prototype: a client's `__proto__.x` or `constructor.x` is a field name like any other,
// never a way to write into Object.prototype (which broke every later request of the process).
const node = (): FieldTree => Object.create(null) as FieldTree;

function fieldTree(names: string[]): FieldTree {
  const tree = node();
  for (const name of names) {
    let at = tree;
    const parts = name.split('.');
    parts.forEach((part, i) => {
      const last = i === parts.length - 1;
      const existing = at[part];
      if (existing === true) return;
      if (last) at[part] = true;
      else at = at[part] = existing ?? node();
    });
  }
  return tree;
}

export const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** A list's envelope: its items in one array, with links and totals beside them. */
export const isListEnvelope = (body: Record<string, unknown>) => 'rest_url' in body && 'total_pages' in body;

/** The parts of a body that `fields` names. */
export function pickFields(body: unknown, fields: FieldTree): unknown {
  if (Array.isArray(body)) return body.map((item) => pickFields(item, fields));
  if (!isObject(body)) return body;
  if (isListEnvelope(body)) {
    return Object.fromEntries(
      Object.entries(body).map(([key, value]) => {
        if (!Array.isArray(value)) return [key, value];
        const named = fields[key];
        return [key, named === true ? value : pickFields(value, named ?? fields)];
      }),
    );
  }
  const picked: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(body)) {
    const named = fields[key];
    if (named === true) picked[key] = value;
    else if (named) picked[key] = pickFields(value, named);
  }
  return picked;
}
