// Flat ESLint config: typescript-eslint's recommended rules over src, test and bench, and the layers of src.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';

// Layers (issue 10): each block says what a folder may not import, so a wrong arrow fails `npm run lint`.
// test/unit/lint-layers.test.ts proves each zone catches its wrong arrow. ESLint replaces (does not merge)
// a rule's options when blocks overlap, so every zone also carries the rules of the zones around it.
const SQLITE_VALUE = {
  name: 'better-sqlite3',
  allowTypeImports: true,
  message: 'Only src/server/storage/sqlite-driver.ts loads better-sqlite3 (a missing driver gets a clear message there); import the type, or use loadSqliteDriver().',
};
const forbid = (folders, message) => ({ group: folders.flatMap((f) => [`**/${f}`, `**/${f}/**`]), message });
const zone = (files, { patterns = [], sqlite = true, allowTypeImports = false, ignores = [] } = {}) => ({
  files,
  ignores,
  rules: {
    '@typescript-eslint/no-restricted-imports': [
      'error',
      { paths: sqlite ? [SQLITE_VALUE] : [], patterns: patterns.map((p) => ({ ...p, allowTypeImports })) },
    ],
  },
});
// The CLI reaches the server only by these lazy imports: `serve` starts it, `admin` writes to a data dir.
const CLI_SERVER_ENTRIES = {
  'src/cli/commands/serve.ts': ['../../server/start.js'],
  'src/cli/commands/admin.ts': ['../../server/admin.js'],
  'src/cli/commands/admin-schema.ts': ['../../server/admin.js'],
};
const escape = (s) => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
const lazyServerImport = (allowed = []) => ({
  'no-restricted-syntax': [
    'error',
    {
      selector: `ImportExpression[source.value=/(^|\\/)server\\//]${allowed.map((a) => `:not([source.value=/^${escape(a)}$/])`).join('')}`,
      message: 'The CLI reaches src/server only through the lazy entry points of `serve` and `admin` (eslint.config.js).',
    },
  ],
});
const layers = [
  zone(['src/**/*.ts']),
  zone(['src/server/storage/sqlite-driver.ts'], { sqlite: false }),
  zone(['src/shared/**/*.ts'], { patterns: [forbid(['cli', 'client', 'server'], 'src/shared is the bottom layer: it imports nothing from cli, client or server.')] }),
  zone(['src/client/**/*.ts'], { patterns: [forbid(['cli', 'server'], 'The client depends only on src/shared.')] }),
  zone(['src/cli/**/*.ts'], {
    patterns: [forbid(['server'], 'The CLI depends on src/client and src/shared; it reaches the server only through `serve`/`admin` lazy imports.')],
    allowTypeImports: true,
  }),
  { files: ['src/cli/**/*.ts'], rules: lazyServerImport() },
  ...Object.entries(CLI_SERVER_ENTRIES).map(([file, allowed]) => ({ files: [file], rules: lazyServerImport(allowed) })),
  zone(['src/server/routes/**/*.ts'], { patterns: [forbid(['storage'], 'Routes call services, not repositories or the database.')] }),
  zone(['src/server/storage/**/*.ts'], {
    patterns: [forbid(['engines', 'services', 'routes', 'plugins', 'jobs', 'billing', 'evaluations'], 'Storage is below engines, services and routes: it imports only storage, shared and drivers.')],
    ignores: ['src/server/storage/sqlite-driver.ts'],
  }),
  zone(['src/server/engines/**/*.ts', 'src/server/audio/**/*.ts'], {
    patterns: [forbid(['storage', 'services', 'routes', 'plugins', 'jobs', 'billing', 'evaluations'], 'Engines and audio code know nothing of storage, services or HTTP: they take audio and settings, and return results.')],
  }),
  zone(['src/server/billing/**/*.ts'], { patterns: [forbid(['evaluations', 'routes'], 'Features stand side by side: billing imports neither evaluations nor routes.')] }),
  zone(['src/server/evaluations/**/*.ts'], { patterns: [forbid(['billing', 'routes'], 'Features stand side by side: evaluations import neither billing nor routes.')] }),
  zone(['src/server/services/**/*.ts'], {
    patterns: [forbid(['routes', 'plugins', 'billing'], 'Services do not depend on routes, Fastify plugins or the billing feature (billing builds on services, not the reverse).')],
  }),
];

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'coverage/**', '.tmp/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      'no-console': ['error', { allow: ['error', 'warn'] }],
    },
  },
  {
    files: ['bench/**', 'scripts/**', 'bin/**', 'src/cli/**', 'test/**'],
    rules: { 'no-console': 'off' },
  },
  // The server logs through the runtime's pino logger (redacted, leveled), never straight to the console.
  {
    files: ['src/server/**/*.ts'],
    rules: { 'no-restricted-properties': ['error', { object: 'console', message: 'Log through runtime.logger (pino, secrets redacted).' }] },
  },
  ...layers,
);
