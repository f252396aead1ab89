// Flat ESLint config: typescript-eslint's recommended rules over src, test and bench, and the layers of src.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';
import { readdirSync } from 'node:fs';

// Layers (issue 10): each block says what a folder may not import, so a wrong arrow fails `npm run lint`.
// test/unit/eslint-layers.test.ts proves each zone catches its wrong arrow. ESLint replaces (does not merge)
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
// The CLI reaches the server only by these lazy imports: `serve` tunes its process and starts it, `admin`
// writes to a data dir.
const CLI_SERVER_ENTRIES = {
  'src/cli/serve/serve.ts': ['../../server/process-tuning.js', '../../server/start.js'],
  'src/cli/admin/admin.ts': ['../../server/admin.js'],
  'src/cli/admin/schema.ts': ['../../server/admin.js'],
  'src/cli/admin/backup.ts': ['../../server/admin.js'],
};
const escape = (s) => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
// The CLI's own layers (issue 32): the entry (main.ts, program.ts, command-groups.ts) → a command group
// (src/cli/<group>/) → core/ (what several groups share). A group never imports another group, statically
// or lazily: what two groups share lives in core/, which imports no group and not the entry.
const CLI_GROUPS = ['src/cli/*/*.ts'];
const CLI_CORE = ['src/cli/core/**/*.ts'];
const CLI_LAYERS = {
  group: {
    regex: '^\\.\\./(?:(?!core/)[^./][^/]*/|(?:main|program)\\.js$)',
    message: 'A command group imports core/ (and command-groups.ts), never another group or the entry: move what two groups share to src/cli/core/ (eslint.config.js).',
  },
  core: {
    regex: '^\\.\\./(?!\\.\\./)',
    message: 'src/cli/core/ is shared by the command groups: it imports no group and not the entry (eslint.config.js).',
  },
};
const lazyServerImport = (allowed = [], layer = undefined) => ({
  'no-restricted-syntax': [
    'error',
    {
      selector: `ImportExpression[source.value=/(^|\\/)server\\//]${allowed.map((a) => `:not([source.value=/^${escape(a)}$/])`).join('')}`,
      message: 'The CLI reaches src/server only through the lazy entry points of `serve` and `admin` (eslint.config.js).',
    },
    ...(layer ? [{ selector: `ImportExpression[source.value=/${layer.regex.replace(/\//g, '\\/')}/]`, message: layer.message }] : []),
  ],
});
const CLI_SERVER = {
  ...forbid(['server'], 'The CLI depends on src/client and src/shared; it reaches the server only through `serve`/`admin` lazy imports.'),
  allowTypeImports: true,
};
const cliZone = (files, layer, ignores = []) => ({
  files,
  ignores,
  rules: {
    '@typescript-eslint/no-restricted-imports': ['error', { paths: [SQLITE_VALUE], patterns: [CLI_SERVER, ...(layer ? [{ regex: layer.regex, message: layer.message }] : [])] }],
    ...lazyServerImport([], layer),
  },
});
// The server's layers, as one table of allowed arrows: each folder of src/server (and each file at its top)
// may import the folders listed here, src/shared, and the leaf files at the top of src/server (clock,
// logger, errors, html, workers: they import only src/shared). Every other arrow inside src/server fails lint.
//   the wiring at the top (start, app, runtime, work-kinds) → features/<feature>/ → infrastructure
//   (work → storage; engines → audio; storage, audio, plugins: nothing of the server).
// A feature folder holds everything of one feature: its routes, rules, repository, views and work kind.
// It reaches another feature only through that feature's index.ts (what the feature offers the others),
// never a file inside it; and nothing below the features imports one (the work loop runs the work kinds
// the composition root hands it).
const SERVER_FOLDERS = {
  storage: [],
  audio: [],
  plugins: [],
  engines: ['audio'],
  work: ['storage'],
  features: ['storage', 'engines', 'audio', 'work', 'plugins'],
};
const SERVER_LEAVES = ['clock', 'logger', 'errors', 'html', 'workers'];
// The wiring at the top of src/server: which folders and which top-level files each may import. A top-level
// file not named here is a leaf (src/shared only). Nothing in a folder imports these files.
const SERVER_TOP = {
  start: { folders: [], files: ['app', 'runtime', 'options'] },
  app: { folders: ['plugins', 'features'], files: ['runtime'] },
  runtime: { folders: ['storage', 'audio', 'engines', 'work', 'features'], files: ['config', 'options', 'secret', 'work-kinds'] },
  'work-kinds': { folders: ['storage', 'engines', 'work', 'features'], files: [] },
  admin: { folders: ['storage', 'features'], files: [] },
  config: { folders: ['engines'], files: [] },
  secret: { folders: ['storage'], files: [] },
  options: { folders: [], files: [] },
};
// The features, read from the folder so that a new one is held to the same rule the day it appears.
const FEATURES = readdirSync(new URL('./src/server/features/', import.meta.url), { withFileTypes: true })
  .filter((d) => d.isDirectory())
  .map((d) => d.name);
const MAX_SERVER_DEPTH = 5;
const TOP_FILES = Object.keys(SERVER_TOP);
const alternation = (names) => names.map(escape).join('|');
// Import specifiers are relative, so a file `depth` folders below src/server reaches its top with exactly
// `depth` "../" (or one more and `server/`): the patterns are anchored on that, so `routes/jobs/` is never
// taken for `jobs/`.
const upTo = (depth) => `^(?:(?:\\.\\./){${depth}}|(?:\\.\\./){${depth + 1}}server/)`;
const serverRegex = (depth, what) => (depth === 0 ? `^\\./${what}` : `${upTo(depth)}${what}`);
const serverZone = (files, depth, from, mayFolders, mayFiles, { patterns: more = [], ...extra } = {}) => {
  const allowed = [...mayFolders.map((f) => `${f}/`), ...mayFiles.map((f) => `${f}.ts`)];
  const says = `${from} may import ${allowed.length ? allowed.join(', ') + ', ' : ''}src/shared and ${SERVER_LEAVES.map((f) => `${f}.ts`).join('/')} (the server's layer table in eslint.config.js)`;
  const folders = Object.keys(SERVER_FOLDERS).filter((f) => f !== from.replace(/\/$/, '') && !mayFolders.includes(f));
  const topFiles = TOP_FILES.filter((f) => `${f}.ts` !== from && !mayFiles.includes(f));
  return zone(files, {
    ...extra,
    patterns: [
      { regex: `^(?:\\.\\./){${depth + 1}}(?:cli|client)(?:/|$)`, message: `The server does not import the CLI or the client (${from}).` },
      ...folders.map((f) => ({ regex: serverRegex(depth, `${escape(f)}(?:/|$)`), message: `${from} → ${f}/ is not an arrow of the server's layers: ${says}.` })),
      ...(topFiles.length ? [{ regex: serverRegex(depth, `(?:${alternation(topFiles)})\\.js$`), message: `${from} → the server's wiring (${topFiles.join(', ')}) is not an arrow of its layers: ${says}.` }] : []),
      ...more,
    ],
  });
};
const serverZones = () => [
  serverZone(['src/server/*.ts'], 0, 'a top-level leaf', [], []),
  ...Object.entries(SERVER_TOP).map(([file, may]) => serverZone([`src/server/${file}.ts`], 0, `${file}.ts`, may.folders, may.files)),
  ...Object.entries(SERVER_FOLDERS).flatMap(([folder, may]) =>
    Array.from({ length: MAX_SERVER_DEPTH }, (_, i) =>
      serverZone([`src/server/${folder}/${'*/'.repeat(i)}*.ts`], i + 1, `${folder}/`, may, [], {
        ignores: folder === 'storage' ? ['src/server/storage/sqlite-driver.ts'] : [],
      }),
    ),
  ),
  // A feature's files: the features/ row of the table, and no file inside another feature (its index.ts only).
  ...FEATURES.flatMap((feature) =>
    Array.from({ length: MAX_SERVER_DEPTH - 1 }, (_, i) =>
      serverZone([`src/server/features/${feature}/${'*/'.repeat(i)}*.ts`], i + 2, 'features/', SERVER_FOLDERS.features, [], {
        patterns: [
          {
            regex: `^(?:\\.\\./){${i + 1}}(?:\\.\\./features/)?(?!${escape(feature)}/)[^./][^/]*/(?!index\\.js$)`,
            message: `features/${feature}/ reaches another feature only through its index.ts (what that feature offers the others), never a file inside it.`,
          },
        ],
      }),
    ),
  ),
  // The driver seam may load better-sqlite3 and is otherwise storage.
  serverZone(['src/server/storage/sqlite-driver.ts'], 1, 'storage/', SERVER_FOLDERS.storage, [], { sqlite: false }),
];
const layers = [
  zone(['src/**/*.ts']),
  zone(['src/shared/**/*.ts'], { patterns: [forbid(['cli', 'client', 'server'], 'src/shared is the bottom layer: it imports nothing from cli, client or server.')] }),
  zone(['src/client/**/*.ts'], { patterns: [forbid(['cli', 'server'], 'The client depends only on src/shared.')] }),
  cliZone(['src/cli/**/*.ts']),
  cliZone(CLI_GROUPS, CLI_LAYERS.group, CLI_CORE),
  cliZone(CLI_CORE, CLI_LAYERS.core),
  ...Object.entries(CLI_SERVER_ENTRIES).map(([file, allowed]) => ({ files: [file], rules: lazyServerImport(allowed, CLI_LAYERS.group) })),
  ...serverZones(),
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
