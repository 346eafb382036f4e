// ESLint (flat config): typescript-eslint's strict and stylistic type-aware rules, and the layers of
// docs/architecture.md as import rules, so that the architecture is checked rather than hoped for.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/** The folders of src/ that are layers (docs/architecture.md). */
const LAYERS = [
  'domain',
  'lib',
  'recurrence',
  'metrics',
  'db',
  'queries',
  'auth',
  'services',
  'serializers',
  'handlers',
  'pages',
  'webhooks',
  'http',
  'discovery',
  'validation',
  'media',
  'import',
  'caldav',
  'ical',
];

/** The patterns that match imports from a folder of src/ (relative paths, any depth), but for the files `allowed`. */
const from = (folder, allowed = []) => ({
  group: [`**/${folder}/*`, `**/${folder}/**`, `./${folder}/*`, ...allowed.map((file) => `!**/${folder}/${file}`)],
  message: `docs/architecture.md: this layer may not import from ${folder}/${allowed.length ? ` but ${allowed.join(', ')}` : ''}.`,
});

/** A rule that forbids imports from the named folders of src/. */
const forbid = (...folders) => ({
  'no-restricted-imports': ['error', { patterns: folders.map((folder) => from(folder)) }],
});

export default tseslint.config(
  // test/tools/clients/ compile against clients generated at test time, type-checked by that test.
  { ignores: ['generated/', 'dist/', 'test-artifacts/', 'node_modules/', 'data/', 'test/tools/clients/'] },
  js.configs.recommended,
  ...tseslint.configs.strictTypeChecked,
  ...tseslint.configs.stylisticTypeChecked,
  {
    languageOptions: {
      parserOptions: {
        projectService: { allowDefaultProject: ['*.js', 'scripts/*.mjs'] },
        tsconfigRootDir: import.meta.dirname,
      },
    },
  },
  {
    rules: {
      // Numbers and booleans print plainly; anything else in a template needs a deliberate String().
      '@typescript-eslint/restrict-template-expressions': ['error', { allowNumber: true, allowBoolean: true }],
      // Environment variables set to '' must fall back to their defaults, which `||` does and `??` would not.
      '@typescript-eslint/prefer-nullish-coalescing': ['error', { ignorePrimitives: { string: true } }],
      // `_name` marks a parameter that must stay (Express tells error handlers by their four parameters);
      // `{ omitted, ...rest }` is how a field is left out of a copy.
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', ignoreRestSiblings: true }],
      // Nested ternaries are hard to read; the limit keeps functions small enough to test branch by branch.
      'no-nested-ternary': 'error',
      complexity: ['error', 15],
    },
  },
  {
    // Tests read JSON response bodies, which are `any` by nature; asserting on them is their job.
    files: ['test/**'],
    rules: {
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-non-null-assertion': 'off',
      // Teardown hooks guard against a set-up that failed half-way (`s?.close()`), which types cannot know.
      '@typescript-eslint/no-unnecessary-condition': 'off',
    },
  },
  // The layers (docs/architecture.md): each folder of src/ may import only from those below it.
  {
    files: ['src/domain/**'],
    rules: forbid(
      'metrics',
      'lib',
      'recurrence',
      'db',
      'queries',
      'auth',
      'services',
      'serializers',
      'handlers',
      'http',
      'discovery',
      'validation',
      'media',
      'import',
      'caldav',
      'ical',
    ),
  },
  {
    files: ['src/lib/**'],
    rules: forbid(
      'metrics',
      'recurrence',
      'db',
      'queries',
      'auth',
      'services',
      'serializers',
      'handlers',
      'http',
      'discovery',
      'validation',
      'media',
      'import',
      'caldav',
      'ical',
    ),
  },
  {
    files: ['src/db/**'],
    rules: forbid(
      'recurrence',
      'queries',
      'auth',
      'services',
      'serializers',
      'handlers',
      'http',
      'discovery',
      'media',
      'import',
      'caldav',
      'ical',
    ),
  },
  {
    files: ['src/queries/**'],
    rules: forbid(
      'recurrence',
      'services',
      'serializers',
      'handlers',
      'http',
      'discovery',
      'media',
      'import',
      'caldav',
      'ical',
    ),
  },
  {
    files: ['src/auth/**'],
    rules: forbid(
      'recurrence',
      'queries',
      'services',
      'serializers',
      'handlers',
      'http',
      'discovery',
      'media',
      'import',
      'caldav',
      'ical',
    ),
  },
  {
    files: ['src/services/**'],
    rules: forbid('serializers', 'handlers', 'http', 'discovery', 'import', 'caldav', 'ical'),
  },
  // ical/ writes with the serializers' helpers (write-calendar.ts): they never import it back.
  {
    files: ['src/serializers/**'],
    rules: forbid('db', 'queries', 'services', 'handlers', 'discovery', 'import', 'caldav', 'ical'),
  },
  { files: ['src/handlers/**'], rules: forbid('db', 'queries', 'auth', 'import', 'caldav') },
  { files: ['src/pages/**'], rules: forbid('db', 'queries', 'auth', 'handlers', 'import', 'caldav') },
  { files: ['src/webhooks/**'], rules: forbid('handlers', 'discovery', 'pages', 'import', 'caldav', 'ical') },
  // RFC 5545 recurrence (src/recurrence/): reading, can-it-occur, cost, expanding and rewriting a
  // series' lines, on nothing but domain/ and lib/; services, serializers and the doors above use it.
  {
    files: ['src/recurrence/**'],
    rules: forbid(...LAYERS.filter((layer) => !['domain', 'lib', 'recurrence'].includes(layer))),
  },
  // Images (sharp): what an upload becomes, on nothing but domain/ and lib/; services store it, http/ reads it.
  {
    files: ['src/media/**'],
    rules: forbid(...LAYERS.filter((layer) => !['domain', 'lib', 'media'].includes(layer))),
  },
  // The document's validators, which http/ and import/ both validate with: below both, on nothing but domain/ and lib/.
  {
    files: ['src/validation/**'],
    rules: forbid(...LAYERS.filter((layer) => !['domain', 'lib', 'validation'].includes(layer))),
  },
  // iCalendar (src/ical/): reading it and writing it, for every door that speaks it (the feeds, CalDAV,
  // the importer), pure: on domain/ and lib/, and for the writer what names an event elsewhere: the
  // caller's type (auth/roles.ts), the URLs (http/urls.ts), and the serializers' event page, links
  // a caller may read and image (serializers/events.ts, images.ts), written once there.
  {
    files: ['src/ical/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            ...LAYERS.filter(
              (layer) => !['domain', 'lib', 'recurrence', 'ical', 'auth', 'http', 'serializers'].includes(layer),
            ).map((layer) => from(layer)),
            from('auth', ['roles.js']),
            from('http', ['urls.js']),
            from('serializers', ['events.js', 'images.js']),
          ],
        },
      ],
    },
  },
  // The importer (`npm run import`) is an entry point beside http/: it writes through the services,
  // with their permissions, and validates with validation/, never through the HTTP layer.
  {
    files: ['src/import/**'],
    rules: forbid('queries', 'auth', 'serializers', 'handlers', 'pages', 'webhooks', 'http', 'discovery', 'caldav'),
  },
  // CalDAV (src/caldav/) is an entry point beside http/ that keeps only the protocol: it reads and
  // writes through the services (services/calendar-objects/), speaks iCalendar through ical/, and
  // holds no SQL: neither queries/ nor the importer.
  {
    files: ['src/caldav/**'],
    rules: forbid('handlers', 'pages', 'discovery', 'webhooks', 'queries', 'import'),
  },
  // Neither entry point imports the other.
  { files: ['src/http/**', 'src/discovery/**', 'src/app.ts', 'src/server.ts'], rules: forbid('import') },
  // Every layer counts into the metrics; the metrics import none of them.
  { files: ['src/metrics/**'], rules: forbid(...LAYERS) },
  { files: ['**/*.js', '**/*.mjs'], ...tseslint.configs.disableTypeChecked },
  {
    // The scripts run on Node; these are the few Node globals they use (the `globals` package is not installed).
    files: ['**/*.js', '**/*.mjs'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly', structuredClone: 'readonly' } },
  },
);
