import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli, createSandbox, serveDetached, type Sandbox, type ServedCli } from '../helpers/cli.js';

// `--normalizer` on `stt accuracy` (offline) and `stt compare` (the BUILT bin against a detached server).
let sb: Sandbox;
let server: ServedCli | undefined;
const SPEECH = join(import.meta.dirname, '../../fixtures/speech-slt.wav');
const json = (s: string) => JSON.parse(s) as Record<string, unknown>;

beforeAll(() => {
  sb = createSandbox();
});

afterAll(async () => {
  await server?.stop();
  sb?.cleanup();
});

describe('stt accuracy --normalizer', () => {
  it('whisper-en equates spelled and written forms, and reports itself', async () => {
    const args = ['stt', 'accuracy', '-r', "Mr. Smith won't pay twenty one percent", '-H', 'mister smith will not pay 21%', '--json'];
    const basic = json((await cli(sb, args)).stdout);
    expect(basic).toMatchObject({ normalizer: { name: 'basic', version: 2 } });
    expect(basic.wer).toBeGreaterThan(0);
    const whisper = await cli(sb, [...args, '--normalizer', 'whisper-en']);
    expect(whisper.exitCode, whisper.stderr).toBe(0);
    expect(json(whisper.stdout)).toMatchObject({ wer: 0, normalizer: { name: 'whisper-en', version: 1 } });
    const plain = await cli(sb, ['stt', 'accuracy', '-r', 'twenty one', '-H', '21', '--normalizer', 'whisper-en']);
    expect(plain.stdout).toMatch(/normalizer\s+whisper-en \(version 1\)/);
  });

  it('refuses an unknown normaliser with exit code 2, naming the known ones', async () => {
    for (const extra of [[], ['--no-normalize']]) {
      const r = await cli(sb, ['stt', 'accuracy', '-r', 'a', '-H', 'a', '--normalizer', 'whisper', ...extra]);
      expect(r.exitCode).toBe(2);
      expect(r.stderr).toContain('Unknown normalizer: whisper');
      expect(r.stderr).toContain('basic, whisper-en');
    }
  });
});

describe('stt compare --normalizer', () => {
  it('refuses an unknown normaliser before any request', async () => {
    const r = await cli(sb, ['stt', 'compare', SPEECH, '-p', 'local-sphinx', '-r', 'x', '--normalizer', 'nope'], { env: { VOXCTL_BASE_URL: 'http://127.0.0.1:9' } });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('Unknown normalizer: nope');
  });

  it('scores every provider with the chosen normaliser', async () => {
    server = await serveDetached(sb);
    const env = { VOXCTL_BASE_URL: server.url, VOXCTL_API_KEY: server.key };
    // local-sphinx transcribes the fixture exactly; the annotation in brackets is what whisper-en drops.
    const reference = 'Please call me back after the meeting tomorrow morning [laughs]';
    const run = async (normalizer: string) => {
      const r = await cli(sb, ['stt', 'compare', SPEECH, '-p', 'local-sphinx', '-r', reference, '--normalizer', normalizer, '--json'], { env, timeout: 120_000 });
      expect(r.exitCode, r.stderr).toBe(0);
      return (json(r.stdout).results as { accuracy: { wer: number; normalizer: { name: string } } }[])[0]!.accuracy;
    };
    expect(await run('whisper-en')).toMatchObject({ wer: 0, normalizer: { name: 'whisper-en' } });
    expect((await run('basic')).wer).toBe(0.1); // 'laughs' deleted: 1 of 10 words
  }, 180_000);
});
