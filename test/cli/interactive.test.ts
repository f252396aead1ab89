import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, createSandbox, serveDetached, type Sandbox, type ServedCli } from '../helpers/cli.js';

// A real pseudo-terminal: tmux runs the CLI, send-keys types, capture-pane reads the screen.
let sb: Sandbox;
let server: ServedCli;
const sessions: string[] = [];

beforeAll(async () => {
  sb = createSandbox();
  server = await serveDetached(sb);
}, 120_000);
afterAll(async () => {
  for (const s of sessions) await execa('tmux', ['kill-session', '-t', s], { reject: false });
  await server?.stop();
  sb?.cleanup();
});

async function tmux(name: string, command: string, env: Record<string, string>): Promise<void> {
  sessions.push(name);
  const exports = Object.entries(env).map(([k, v]) => `${k}='${v}'`).join(' ');
  await execa('tmux', ['new-session', '-d', '-s', name, '-x', '160', '-y', '40', `env -i ${exports} ${command}; echo "EXIT=$?"; sleep 60`]);
}

async function screen(name: string): Promise<string> {
  return (await execa('tmux', ['capture-pane', '-p', '-t', name])).stdout;
}

async function waitFor(name: string, pattern: RegExp, ms = 20_000): Promise<string> {
  const end = Date.now() + ms;
  let last = '';
  while (Date.now() < end) {
    last = await screen(name);
    if (pattern.test(last)) return last;
    await new Promise((r) => setTimeout(r, 150));
  }
  throw new Error(`timed out waiting for ${pattern} in:\n${last}`);
}

describe('interactive (tmux)', () => {
  it('auth login asks for the key with a hidden prompt', async () => {
    const name = `voxctl-login-${process.pid}`;
    await tmux(name, `"${process.execPath}" "${BIN}" auth login`, { ...sb.env, VOXCTL_BASE_URL: server.url, TERM: 'xterm-256color' });
    await waitFor(name, /API key for/);
    await execa('tmux', ['send-keys', '-t', name, '-l', server.key]);
    await execa('tmux', ['send-keys', '-t', name, 'Enter']);
    const done = await waitFor(name, /EXIT=\d+/);
    expect(done).toContain('EXIT=0');
    expect(done).toContain('Logged in');
    expect(done).not.toContain(server.key);
  }, 60_000);

  /** Runs `command` in tmux, types "non-binary" into the speaker picker, presses Enter, returns the final screen. */
  async function pickNonBinary(name: string, command: string): Promise<string> {
    await tmux(name, command, { ...sb.env, VOXCTL_BASE_URL: server.url, VOXCTL_API_KEY: server.key, TERM: 'xterm-256color' });
    await waitFor(name, /Search speakers/);
    await execa('tmux', ['send-keys', '-t', name, '-l', 'non-binary']);
    await waitFor(name, /Non-binary/);
    await execa('tmux', ['send-keys', '-t', name, 'Enter']);
    return waitFor(name, /EXIT=\d+/);
  }
  const pick = `"${process.execPath}" "${BIN}" speakers pick`;

  it('speakers pick searches as you type and prints the chosen id', async () => {
    const done = await pickNonBinary(`voxctl-pick-${process.pid}`, pick);
    expect(done).toContain('EXIT=0');
    expect(done).toMatch(/^spk_\S+$/m);
  }, 60_000);

  it('$(voxctl speakers pick) draws the picker on /dev/tty and captures only the id (issue 9 item 3)', async () => {
    const done = await pickNonBinary(`voxctl-pick-sub-${process.pid}`, `sh -c 'ID=$(${pick}); echo "PICKED=[$ID]"'`);
    expect(done).toContain('EXIT=0');
    expect(done).toMatch(/PICKED=\[spk_[^\s\]]+\]/);
  }, 60_000);
});
