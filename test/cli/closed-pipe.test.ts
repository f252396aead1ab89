import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, startServedSandbox, type Sandbox, type ServedCli } from '../helpers/cli.js';

// DESIGN §15.8: output into a pipe whose reader stops early (`voxctl … | head -1`) is no error — the CLI
// ends quietly with the command's own exit code. Before the fix `serve --help | head -1` crashed with an
// unhandled EPIPE in most runs, so each case runs several times through a real shell pipeline.
let sb: Sandbox;
let server: ServedCli;
let env: Record<string, string>;

beforeAll(async () => void ({ sb, server, env } = await startServedSandbox()), 120_000);
afterAll(async () => {
  await server?.stop();
  sb?.cleanup();
});

/** Runs `voxctl ARGS | head -1` in bash: the CLI's exit code (PIPESTATUS), its stderr, and what head printed. */
async function intoHead(args: string[]): Promise<{ exitCode: number; stderr: string; stdout: string }> {
  const script = '"$0" "$1" "${@:2}" 2>"$STDERR_FILE" | head -1; code="${PIPESTATUS[0]}"; cat "$STDERR_FILE" >&2; exit "$code"';
  const stderrFile = `${sb.root}/stderr-${Math.random().toString(36).slice(2)}.txt`;
  const r = await execa('bash', ['-c', script, process.execPath, BIN, ...args], {
    env: { ...sb.env, ...env, STDERR_FILE: stderrFile },
    extendEnv: false,
    reject: false,
    timeout: 60_000,
    cwd: sb.root,
  });
  return { exitCode: r.exitCode ?? -1, stderr: String(r.stderr), stdout: String(r.stdout) };
}

describe('output into a closed pipe (DESIGN §15.8)', () => {
  it('serve --help | head -1: the first line, exit 0, nothing on stderr, run after run', async () => {
    for (let i = 0; i < 8; i++) {
      const r = await intoHead(['serve', '--help']);
      expect(r.stderr, `run ${i}`).toBe('');
      expect(r.exitCode, `run ${i}`).toBe(0);
      expect(r.stdout).toMatch(/^Usage: voxctl serve/);
    }
  }, 120_000);

  it('speakers list --all --csv | head -1: a write far beyond the pipe buffer ends quietly with exit 0', async () => {
    for (let i = 0; i < 3; i++) {
      const r = await intoHead(['speakers', 'list', '--all', '--csv']);
      expect(r.stderr, `run ${i}`).toBe('');
      expect(r.exitCode, `run ${i}`).toBe(0);
      expect(r.stdout.split(',')[0]).toBe('id');
    }
  }, 120_000);

  it('speakers list | head -1 keeps the exit code of a command that fails', async () => {
    const r = await intoHead(['speakers', 'list', '--limit', '0']);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/limit/);
    expect(r.stderr).not.toMatch(/EPIPE/);
  }, 60_000);
});
