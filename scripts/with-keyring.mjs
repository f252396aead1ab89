#!/usr/bin/env node
// Starts an unlocked gnome-keyring (Secret Service) in the current D-Bus session, then runs the
// given command. Used by scripts/test.mjs inside `dbus-run-session`.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const keyringHome = mkdtempSync(join(tmpdir(), 'voxctl-keyring-'));
const env = { ...process.env, XDG_DATA_HOME: join(keyringHome, 'data'), XDG_RUNTIME_DIR: keyringHome };
const unlock = spawnSync('gnome-keyring-daemon', ['--unlock', '--components=secrets', '--daemonize'], {
  input: 'voxctl-test\n',
  env,
  encoding: 'utf8',
});
if (unlock.status !== 0) {
  console.error(`gnome-keyring-daemon failed to start: ${unlock.stderr}`);
  process.exit(1);
}
// gnome-keyring prints GNOME_KEYRING_CONTROL=... lines: pass them on to the command.
for (const line of unlock.stdout.split('\n')) {
  const m = /^([A-Z_]+)=(.*)$/.exec(line.trim());
  if (m) env[m[1]] = m[2];
}
const [cmd, ...args] = process.argv.slice(2);
if (!cmd) {
  console.error('usage: node scripts/with-keyring.mjs COMMAND [ARGS...]');
  process.exit(2);
}
const child = spawn(cmd, args, { stdio: 'inherit', env: { ...process.env, ...Object.fromEntries(Object.entries(env).filter(([k]) => k.startsWith('GNOME_KEYRING'))) } });
// Ctrl-C / CI cancellation reach the command; the throwaway keyring is removed when it ends
// (the daemon itself exits with the D-Bus session).
for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => child.kill(sig));
child.on('exit', (code, signal) => {
  rmSync(keyringHome, { recursive: true, force: true });
  process.exit(code ?? (signal ? 1 : 0));
});
