import { Command, CommanderError } from 'commander';
import { VERSION } from '../shared/version.js';
import { CliError, ExitCode } from './errors.js';
import { registerServe } from './commands/serve.js';
import { registerAdmin } from './commands/admin.js';

/** Builds the program with every command group; commands reach collaborators through their context. */
export function buildProgram(): Command {
  const program = new Command('voxctl')
    .description('Test voice synthesis and speech recognition: TTS, batch jobs, datasets, STT vendor comparison.')
    .version(VERSION, '-V, --version')
    .showSuggestionAfterError()
    .exitOverride();
  registerServe(program);
  registerAdmin(program);
  return program;
}

/** The one error handler of the CLI: message (and hint) on stderr, exit code per DESIGN §7. */
export function exitCodeFor(error: unknown): { code: number; message?: string } {
  if (error instanceof CommanderError) {
    // --help and --version end through exitOverride with code 0: nothing more to say.
    if (error.exitCode === 0) return { code: 0 };
    return { code: ExitCode.usage };
  }
  if (error instanceof CliError) {
    return { code: error.exitCode, message: error.hint ? `${error.message}\nHint: ${error.hint}` : error.message };
  }
  const message = error instanceof Error ? error.message : String(error);
  return { code: ExitCode.error, message: `Unexpected error: ${message}` };
}

/** Runs the CLI with `argv` (user args only) and resolves to the exit code. */
export async function run(argv: string[]): Promise<number> {
  try {
    await buildProgram().parseAsync(argv, { from: 'user' });
    return ExitCode.ok;
  } catch (error) {
    const { code, message } = exitCodeFor(error);
    if (message) process.stderr.write(`Error: ${message}\n`);
    return code;
  }
}

const isEntry = process.argv[1] !== undefined && /voxctl(\.js)?$|main\.[jt]s$/.test(process.argv[1]);
if (isEntry) {
  process.exitCode = await run(process.argv.slice(2));
}
