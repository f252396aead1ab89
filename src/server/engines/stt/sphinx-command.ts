/**
 * How a PocketSphinx program is started so that it never outlives the server: under `setpriv --pdeathsig
 * KILL` (util-linux) when the machine has it, so the kernel kills it the moment the server's process
 * ends, however it ends; and under `stdbuf -oL` (coreutils) when asked, for a program that prints to
 * stdout and should print each line as it is decided rather than at exit.
 */
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';

/** `name` on PATH, if any (an executable file). */
export function findOnPath(name: string, pathVar = process.env.PATH ?? ''): string | undefined {
  for (const dir of pathVar.split(delimiter).filter(Boolean)) {
    try {
      accessSync(join(dir, name), constants.X_OK);
      return join(dir, name);
    } catch {
      // not here
    }
  }
  return undefined;
}

/** The command line that runs `binary` with `args`: dying with the server, line-buffered if `lineBuffered`. */
export function recogniserCommand(binary: string, args: string[], options: { pathVar?: string; lineBuffered: boolean }): [string, string[]] {
  const setpriv = findOnPath('setpriv', options.pathVar);
  const stdbuf = options.lineBuffered ? findOnPath('stdbuf', options.pathVar) : undefined;
  const argv = [...(setpriv ? [setpriv, '--pdeathsig', 'KILL', '--'] : []), ...(stdbuf ? [stdbuf, '-oL'] : []), binary, ...args];
  return [argv[0] as string, argv.slice(1)];
}
