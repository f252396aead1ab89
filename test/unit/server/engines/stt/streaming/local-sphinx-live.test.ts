import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { createSphinxStreaming } from '../../../../../../src/server/engines/stt/streaming/local-sphinx.js';
import { runStream } from '../../../../../../src/server/engines/stt/streaming/run.js';
import { FrameScheduler } from '../../../../../../src/server/engines/stt/streaming/scheduler.js';

// pocketsphinx-testdata: "go forward ten meters", 16 kHz raw PCM16.
const raw = readFileSync('/usr/share/pocketsphinx/test/data/goforward.raw');
const audio = { pcm: new Int16Array(raw.buffer, raw.byteOffset, raw.byteLength / 2), sampleRate: 16000 };

describe('local-sphinx streaming (PocketSphinx fed through a FIFO as audio arrives)', () => {
  it('recognises the clip and measures its latency from the end of speech', async () => {
    const run = await runStream({ scheduler: new FrameScheduler() }, createSphinxStreaming(), audio, { pace: 2 });
    expect(run.error).toBeUndefined();
    expect(run.transcript).toBe('go forward ten meters');
    expect(run.frames).toBe(Math.ceil(audio.pcm.length / 320));
    expect(run.final_latency_ms).toBeGreaterThan(0);
    expect(run.first_partial_ms).toBeGreaterThan(0);
    expect(run.early_words).toBe(0);
  });

  it('a missing binary is provider_unavailable', async () => {
    const run = await runStream({ scheduler: new FrameScheduler() }, createSphinxStreaming({ binary: '/nonexistent/pocketsphinx' }), audio, { pace: 4 });
    expect(run.error?.code).toBe('provider_unavailable');
    expect(run.error?.message).toMatch(/not found; install PocketSphinx/);
  });

  it('a recogniser that dies mid-stream is an error, not a hang', async () => {
    // `false` exits at once without opening the FIFO.
    const run = await runStream({ scheduler: new FrameScheduler() }, createSphinxStreaming({ binary: '/bin/false' }), audio, { pace: 4 });
    expect(run.error?.code).toBe('provider_unavailable');
  });

  // Killed by the kernel with the server (setpriv --pdeathsig), or, where setpriv is missing (a PATH without
  // it), ended by the end of file the server's death means: it held the FIFO's only writing end.
  it.each([
    ['', '{}'],
    [' (no setpriv on the PATH)', "{ binary: '/usr/bin/pocketsphinx_continuous', path: '' }"],
  ])('a recogniser does not outlive a server killed just after it was spawned%s', async (_, options) => {
    // The window: the server spawned PocketSphinx, and its libuv threads are busy when it is SIGKILLed (an
    // open() of the FIFO for writing queued behind them left PocketSphinx blocked in its own open() for ever).
    // Reproduced: one libuv thread, held by an open() that never returns, from just after the spawn.
    const dir = mkdtempSync(join(tmpdir(), 'voxctl-orphan-'));
    const live = () =>
      readdirSync('/proc')
        .filter((p) => /^\d+$/.test(p))
        .filter((p) => {
          try {
            return readFileSync(`/proc/${p}/cmdline`, 'utf8').includes(dir);
          } catch {
            return false; // gone meanwhile
          }
        });
    const dist = new URL('../../../../../../dist/server/engines/stt/streaming/local-sphinx.js', import.meta.url).href;
    const script = `
      import childProcess from 'node:child_process';
      import { open, readFileSync } from 'node:fs';
      import { syncBuiltinESMExports } from 'node:module';
      const spawn = childProcess.spawn;
      let recogniser;
      childProcess.spawn = (...args) => {
        const child = spawn(...args);
        recogniser = child.pid;
        childProcess.execFileSync('mkfifo', [process.env.TMPDIR + '/never']);
        open(process.env.TMPDIR + '/never', 'r', () => {}); // no writer ever: the one libuv thread stays in open()
        return child;
      };
      syncBuiltinESMExports();
      const { createSphinxStreaming } = await import(${JSON.stringify(dist)});
      void createSphinxStreaming(${options}).open({}, () => {});
      // Killed once PocketSphinx has loaded its model and waits on the FIFO (in its open() or its first read),
      // however long loading takes on a busy machine.
      const waiting = () => { try { return /partner|pipe/.test(readFileSync('/proc/' + recogniser + '/wchan', 'utf8')); } catch { return false; } };
      setInterval(() => { if (waiting()) process.kill(process.pid, 'SIGKILL'); }, 50);
      setTimeout(() => process.kill(process.pid, 'SIGKILL'), 30000);`;
    try {
      const server = await execa(process.execPath, ['--input-type=module', '-e', script], {
        env: { TMPDIR: dir, UV_THREADPOOL_SIZE: '1' },
        reject: false,
      });
      expect(server.signal, server.stderr).toBe('SIGKILL');
      const deadline = Date.now() + 5000;
      while (live().length > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
      expect(live()).toEqual([]);
    } finally {
      for (const pid of live()) process.kill(Number(pid), 'SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
