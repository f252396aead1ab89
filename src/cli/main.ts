// The CLI entry (bin/voxctl.js imports it). `--version` is answered before anything else loads;
// the program and its commands are imported only when needed, so startup stays close to bare Node.
import { versionLine } from '../shared/version.js';

// A reader that stops early (`voxctl … | head -1`) closes the pipe: the writes after that fail with EPIPE,
// which Node emits as an 'error' event and, unhandled, turns into a crash with a stack trace. Output nobody
// reads is no error (DESIGN §15.8): the command runs on and ends with its own exit code. Other errors of a
// standard stream stay what they were.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
  });
}

const argv = process.argv.slice(2);
if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-V')) {
  process.stdout.write(versionLine() + '\n');
} else {
  // Under --json every stderr line is JSON (DESIGN §7): Node's own warnings too, instead of its prose.
  const dashes = argv.indexOf('--');
  if ((dashes < 0 ? argv : argv.slice(0, dashes)).includes('--json')) {
    process.removeAllListeners('warning');
    process.on('warning', (w) => process.stderr.write(JSON.stringify({ warning: { message: w.message, name: w.name } }) + '\n'));
  }
  const { run } = await import('./program.js');
  process.exitCode = await run(argv);
  // Idle keep-alive sockets of fetch would hold the process ~0.1 s longer: flush our output, then leave.
  await Promise.all([process.stdout, process.stderr].map((s) => new Promise((resolve) => s.write('', resolve))));
  process.exit();
}
