/**
 * The top-level commands of `voxctl`, grouped by the module that registers them, with their one-line
 * descriptions. Written here once so `voxctl --help` can list every command without loading the modules
 * (the CLI loads only the group a command line names: start-up stays near bare Node's), and each module
 * reads its own description from here.
 */

/** One top-level command: its name, aliases and `--help` line. */
export interface TopCommand {
  name: string;
  description: string;
  aliases?: readonly string[];
  /** Not listed in `--help` (the shell completion's entry point). */
  hidden?: boolean;
}

/** The command modules in `--help` order, each with the top-level commands it registers. */
export const COMMAND_MODULES = [
  { module: 'auth', commands: [{ name: 'auth', description: 'Log in with an API key, check it, log out' }] },
  {
    module: 'config',
    commands: [
      { name: 'config', description: 'Read and change CLI defaults' },
      { name: 'profile', description: 'Manage named targets (base URLs); each profile has its own key' },
    ],
  },
  { module: 'speakers', commands: [{ name: 'speakers', description: 'Browse the speaker catalogue' }] },
  { module: 'tts', commands: [{ name: 'tts', description: 'Text to speech' }] },
  { module: 'batch', commands: [{ name: 'batch', description: 'Batch synthesis jobs (alias: jobs)', aliases: ['jobs'] }] },
  { module: 'dataset', commands: [{ name: 'dataset', description: 'CSV datasets of texts (and generated audio)' }] },
  { module: 'stt', commands: [{ name: 'stt', description: 'Speech to text: transcribe, compare vendors, compute WER/CER' }] },
  {
    module: 'eval',
    commands: [{ name: 'eval', description: 'Evaluate STT providers on synthesised speech or recorded corpora across voices, groups and audio conditions' }],
  },
  { module: 'corpus', commands: [{ name: 'corpus', description: 'Recorded corpora (your own audio with reference transcripts) to evaluate STT providers on' }] },
  {
    module: 'usage',
    commands: [
      { name: 'usage', description: 'Characters used this billing period, and requests today' },
      { name: 'whoami', description: 'The user behind the current key' },
      { name: 'health', description: "The service's health and version (exit 1 when degraded)" },
    ],
  },
  { module: 'billing', commands: [{ name: 'billing', description: 'Subscription and billing portal' }] },
  { module: 'keys', commands: [{ name: 'keys', description: 'API keys of your account' }] },
  {
    module: 'serve',
    commands: [
      {
        name: 'serve',
        description: 'Run the voxctl service (HTTP API with offline engines; SQLite in the data dir, or a shared PostgreSQL) in the foreground, or detached',
      },
    ],
  },
  { module: 'admin', commands: [{ name: 'admin', description: 'Administer a service you host (writes to its data dir directly)' }] },
  { module: 'doctor', commands: [{ name: 'doctor', description: 'Check engines, PocketSphinx, the keychain, the service version and the data dir' }] },
  {
    module: 'completion',
    commands: [
      { name: 'completion', description: 'Print a shell completion script' },
      { name: '__complete', description: '', hidden: true },
    ],
  },
] as const satisfies readonly { module: string; commands: readonly TopCommand[] }[];

/** A command module's name. */
export type CommandModule = (typeof COMMAND_MODULES)[number]['module'];

/** The `--help` line of top-level command `name` (each module reads its own from here). */
export function describeCommand(name: string): string {
  for (const m of COMMAND_MODULES) for (const c of m.commands as readonly TopCommand[]) if (c.name === name) return c.description;
  throw new Error(`no top-level command ${name}`);
}

// Global options that take a value: their value is not a command name.
const VALUED = new Set(['--profile', '--base-url', '--api-key']);

/**
 * The modules a command line needs: the one its command names (`help X` names X), every one for shell
 * completion (it walks the whole tree), none when it names no known command (`--help`, `--version`, a
 * typo: the unloaded commands' one-line entries are enough).
 */
export function modulesFor(argv: readonly string[]): CommandModule[] | 'all' {
  const operands: string[] = [];
  for (let i = 0; i < argv.length && operands.length < 2; i++) {
    const a = argv[i]!;
    if (a === '--') break;
    if (a.startsWith('-')) {
      if (VALUED.has(a)) i++;
      continue;
    }
    operands.push(a);
  }
  const name = operands[0] === 'help' ? operands[1] : operands[0];
  if (name === undefined) return [];
  const found = COMMAND_MODULES.find((m) => (m.commands as readonly TopCommand[]).some((c) => c.name === name || c.aliases?.includes(name)));
  if (!found) return [];
  return found.module === 'completion' ? 'all' : [found.module];
}
