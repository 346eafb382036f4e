// Every length the document allows, the database holds: for each string with a maxLength in a request
// body (nested objects and array items included), the longest value it allows is written through
// the API. The answer is a success, or a 400 that names the field (a value of that length that means
// nothing, such as a 64-character time zone), never a 5xx from a column too short for it.
import { expect, it } from 'vitest';
import { describeEachDatabase } from '../setup/each-database.js';
import { loadDocument } from '../../src/openapi.js';

type Schema = Record<string, any>;

const document = loadDocument() as Schema;

const resolve = (schema: Schema): Schema => {
  if (typeof schema.$ref !== 'string') return schema;
  const target = schema.$ref
    .replace(/^#\//, '')
    .split('/')
    .reduce((node: Schema, key: string) => node[key], document);
  return { ...resolve(target), ...Object.fromEntries(Object.entries(schema).filter(([k]) => k !== '$ref')) };
};

interface Limited {
  /** Property names from the body down; `[]` an array's item. */
  path: string[];
  schema: Schema;
}

/** Every string with a maxLength under `schema`, each branch of anyOf and oneOf on its own. */
function limitedStrings(schema: Schema, path: string[] = [], seen = new Set<Schema>()): Limited[] {
  const s = resolve(schema);
  if (seen.has(s) || path.length > 4) return [];
  seen.add(s);
  const types = [s.type].flat();
  const limited = types.includes('string') && typeof s.maxLength === 'number' && s.maxLength > 0;
  return [
    ...(limited ? [{ path, schema: s }] : []),
    ...subschemas(s, path).flatMap(([sub, subPath]) => limitedStrings(sub, subPath, seen)),
  ];
}

/**
 * The schemas under a schema, with their paths: the branches of allOf, anyOf and oneOf (of the
 * schema's type unless they give one), its properties, its items.
 */
function subschemas(s: Schema, path: string[]): [Schema, string[]][] {
  const branches: Schema[] = [...(s.allOf ?? []), ...(s.anyOf ?? []), ...(s.oneOf ?? [])];
  return [
    ...branches.map((part): [Schema, string[]] => [{ ...part, type: part.type ?? s.type }, path]),
    ...Object.entries<Schema>(s.properties ?? {}).map(([name, property]): [Schema, string[]] => [
      property,
      [...path, name],
    ]),
    ...(s.items ? [[s.items, [...path, '[]']] as [Schema, string[]]] : []),
  ];
}

/** The longest value the schema allows, made of what its format and pattern accept. */
function longest(schema: Schema): string | undefined {
  const n = schema.maxLength as number;
  const format = schema.format ?? (schema.anyOf ?? []).map((b: Schema) => resolve(b).format).find(Boolean);
  if (format === 'uri' || format === 'iri') return `https://example.org/${'a'.repeat(n - 20)}`;
  if (format === 'email') {
    const domain = `${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(n - 64 - 1 - 128 - 5)}.org`;
    return `${'a'.repeat(64)}@${domain}`.slice(0, n);
  }
  const pattern = schema.pattern ? new RegExp(schema.pattern, 'u') : undefined;
  return ['x', 'X', '1', 'a b'].map((c) => c.repeat(n).slice(0, n)).find((v) => !pattern || pattern.test(v));
}

/** The body with `value` at `path`, arrays of one item along the way. */
function placed(base: Schema, path: string[], value: unknown): Schema {
  const body = structuredClone(base);
  let node: any = body;
  path.forEach((key, i) => {
    const last = i === path.length - 1;
    const next = path[i + 1] === '[]' ? [] : {};
    if (key === '[]') {
      if (last) node.push(value);
      else node.push(next);
      node = node[node.length - 1];
      return;
    }
    if (last) node[key] = value;
    else {
      node[key] = Array.isArray(node[key]) || (typeof node[key] === 'object' && node[key]) ? node[key] : next;
      if (Array.isArray(node[key])) node[key].length = 0;
      node = node[key];
    }
  });
  return body;
}

const CREATES: [string, string, Schema][] = [
  ['createEvent', '/events', { title: 'Long', start_date: '2035-01-01 10:00', end_date: '2035-01-01 11:00' }],
  ['createVenue', '/venues', { venue: 'Long hall' }],
  ['createOrganizer', '/organizers', { organizer: 'Long org' }],
  ['createCategory', '/categories', { name: 'Long category' }],
  ['createTag', '/tags', { name: 'Long tag' }],
  ['createWebhook', '/webhooks', { url: 'https://hooks.example.org/long', events: ['event.created'] }],
];

function bodySchema(operationId: string): Schema {
  for (const item of Object.values<Schema>(document.paths)) {
    for (const operation of Object.values<Schema>(item)) {
      if (operation.operationId === operationId) {
        return resolve(resolve(operation.requestBody).content['application/json'].schema);
      }
    }
  }
  throw new Error(`no operation ${operationId}`);
}

describeEachDatabase(
  'the longest values the document allows',
  (s) => {
    it.each(CREATES)('%s takes every field at its maxLength', async (operationId, path, base) => {
      const fields = limitedStrings(bodySchema(operationId));
      expect(fields.length).toBeGreaterThan(0);
      const refused: string[] = [];
      let n = 0;
      for (const { path: at, schema } of fields) {
        const value = longest(schema);
        if (value === undefined) continue;
        // Unique where the service needs it (names of terms, slugs), and new each time.
        const unique = schema.maxLength >= 20 ? `${String(n++).padStart(4, '0')}${value.slice(4)}` : value;
        // Terms of one name cannot be two: each attempt names its own.
        const body = placed('name' in base ? { ...base, name: `${base.name} ${n++}` } : base, at, unique);
        const r = await s.post(path, body);
        const field = at[0];
        const named = r.status === 400 && JSON.stringify(r.body.data?.params ?? {}).includes(field);
        if (!(r.status < 300 || named)) refused.push(`${at.join('.')}: ${r.status} ${r.text.slice(0, 200)}`);
      }
      expect(refused).toEqual([]);
    });

    // A constraint the validator does not apply (one beside a `$ref`, which openapi-backend dropped)
    // lets a value through to a column too short for it: a 500 instead of a 400.
    it.each(CREATES)('%s refuses every field one past its maxLength, naming it', async (operationId, path, base) => {
      const wrong: string[] = [];
      let n = 0;
      for (const { path: at, schema } of limitedStrings(bodySchema(operationId))) {
        const longer = longest({ ...schema, maxLength: (schema.maxLength as number) + 1 });
        if (longer === undefined) continue;
        // An address made to a length stops at the longest a domain may be: one more letter before the @.
        const value = longer.length > schema.maxLength ? longer : `a${longer}`;
        const body = placed('name' in base ? { ...base, name: `${base.name} past ${n++}` } : base, at, value);
        const r = await s.post(path, body);
        const named = r.status === 400 && JSON.stringify(r.body.data?.params ?? {}).includes(at[0]);
        if (!named) wrong.push(`${at.join('.')}: ${r.status} ${r.text.slice(0, 200)}`);
      }
      expect(wrong).toEqual([]);
    });

    // A slug is cut from the name: cut between the halves of a character outside the Basic
    // Multilingual Plane, it is no text the database takes (a 500), or stored with U+FFFD.
    it.each(CREATES.filter(([operationId]) => operationId !== 'createWebhook'))(
      '%s derives a whole slug from a name of characters outside the BMP',
      async (_, path, base) => {
        const field = ['title', 'venue', 'organizer'].find((key) => key in base) ?? 'name';
        const name = `a${'𠀀'.repeat(150)}`;
        const r = await s.post(path, { ...base, [field]: name });
        expect(r.status, r.text.slice(0, 200)).toBe(201);
        expect(r.body.slug.isWellFormed() && !r.body.slug.includes('\ufffd')).toBe(true);
        expect(Array.from(decodeURIComponent(r.body.slug)).length).toBeLessThanOrEqual(190);
      },
    );

    it('takes a name as long as a term may have, counted in characters, in a comma-separated list', async () => {
      const name = '😀'.repeat(200); // 400 UTF-16 units
      const r = await s.post('/events', { ...CREATES[0][2], tags: `${name},short` });
      expect(r.status).toBe(201);
      expect(r.body.tags.map((t: { name: string }) => t.name)).toContain(name);
    });

    // CalDAV and calendar files name categories by text the document never sees: what is derived
    // from them must fit what a category holds, as the document says it (TermFields.yaml).
    it('cuts a CATEGORIES name longer than a category may have to that length (CalDAV PUT)', async () => {
      const editor = s.users.editor;
      const long = `${'Long category '.repeat(30)}end`; // 423 characters
      const put = await fetch(`${s.origin}/caldav/calendars/events/long-category.ics`, {
        method: 'PUT',
        headers: {
          authorization: `Basic ${Buffer.from(`${editor.login}:${editor.appPassword}`).toString('base64')}`,
          'content-type': 'text/calendar; charset=utf-8',
        },
        body: [
          'BEGIN:VCALENDAR',
          'VERSION:2.0',
          'PRODID:-//tests//EN',
          'BEGIN:VEVENT',
          'UID:long-category@tests',
          'DTSTAMP:20260101T000000Z',
          'DTSTART:20410601T180000Z',
          'DTEND:20410601T200000Z',
          'SUMMARY:Long category',
          `CATEGORIES:${long}`,
          'END:VEVENT',
          'END:VCALENDAR',
          '',
        ].join('\r\n'),
      });
      expect(put.status).toBe(201);
      const { body } = await s.get<{ categories: { name: string }[] }>('/categories?search=Long%20category');
      const made = body.categories.find((c) => c.name.startsWith('Long category'));
      expect(made?.name).toBe(long.slice(0, 200).trim());
    });
  },
  { env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' } },
);
