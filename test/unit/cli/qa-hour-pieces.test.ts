import { describe, expect, it } from 'vitest';
import type { VoxClient } from '../../../src/client/index.js';
import { dryRun } from '../../../src/cli/eval/dry-run.js';
import { Output } from '../../../src/cli/core/output.js';
import { JobProgress } from '../../../src/cli/core/progress.js';
import { parseProviders } from '../../../src/cli/core/stt-providers.js';
import { closestValues } from '../../../src/cli/core/suggest.js';
import { providerLabel } from '../../../src/shared/providers.js';
import type { Job } from '../../../src/shared/schemas/tts.js';
import { Capture, testContext } from '../../helpers/cli-context.js';

describe('provider labels (DESIGN §8.5)', () => {
  it('names the vendor and model, keeps a label the service gives, and the bare token when unbound', () => {
    expect(providerLabel({ id: 'stt-b', adapter: 'deepgram', model: 'nova-3' })).toBe('stt-b · deepgram nova-3');
    expect(providerLabel({ id: 'stt-c', adapter: 'openai', model: null })).toBe('stt-c · openai');
    expect(providerLabel({ id: 'local-sphinx', adapter: 'local-sphinx', model: 'en-us' })).toBe('local-sphinx · en-us');
    expect(providerLabel({ id: 'stt-d', adapter: null, model: null })).toBe('stt-d');
    expect(providerLabel({ id: 'stt-d' })).toBe('stt-d');
    expect(providerLabel({ id: 'stt-b', adapter: 'deepgram', model: 'nova-3', label: 'stt-b · Deepgram Nova 3' })).toBe('stt-b · Deepgram Nova 3');
    expect(providerLabel({ id: 'stt-b', label: 'deepgram nova-3' })).toBe('stt-b · deepgram nova-3');
  });
});

describe('guidance', () => {
  it('suggests the closest facet values, nearest first, and always something', () => {
    const accents = ['American', 'British', 'Scottish', 'Irish', 'Indian', 'Australian'];
    expect(closestValues('scotish', accents)[0]).toBe('Scottish');
    expect(closestValues('brit', accents)[0]).toBe('British');
    expect(closestValues('nope', accents)).toHaveLength(3);
  });

  it('an unknown provider is a usage error naming the valid tokens; all is resolved later', () => {
    expect(parseProviders('all')).toEqual({ all: true });
    expect(parseProviders('stt-b, local-sphinx,stt-b')).toEqual({ all: false, list: ['stt-b', 'local-sphinx'] });
    const e = (() => {
      try {
        parseProviders('stt-b,stt-zz');
      } catch (err) {
        return err as { message: string; hint: string; exitCode: number };
      }
    })()!;
    expect(e).toMatchObject({ message: 'Unknown provider: stt-zz', exitCode: 2 });
    expect(e.hint).toContain('stt-a-model-1, stt-a-model-2, stt-b, stt-c, stt-d, stt-e, stt-f, stt-g, stt-h, local-sphinx');
  });
});

describe('eval run --dry-run arithmetic', () => {
  // Only the client calls a dry run makes: the texts are inline, the speakers named.
  const client = {
    usage: async () => ({ characters_used: 900, characters_limit: 1000 }),
  } as unknown as VoxClient;

  it('prices each provider from its price per minute; unpriced ones are named, not counted', async () => {
    const text = 'x'.repeat(900); // 60 s of speech at 15 characters a second
    const d = await dryRun(client, { texts: [text, text], speakers: { ids: ['a', 'b', 'c'] }, conditions: ['clean', 'speed:2', 'telephone'] }, ['stt-b', 'stt-c'], [
      { id: 'stt-b', adapter: 'deepgram', model: 'nova-3', state: 'ready', price_per_minute_usd: 0.0043 },
      { id: 'stt-c', adapter: 'openai', model: null, state: 'ready' },
    ]);
    // 2 texts × 1 min × 3 speakers × (1 + 0.5 + 1) conditions = 15 audio minutes per provider.
    expect(d.providers[0]).toMatchObject({ provider: 'stt-b', label: 'stt-b · deepgram nova-3', utterances: 18, audio_minutes: 15, cost_usd: 0.0645 });
    expect(d.providers[1]).toMatchObject({ provider: 'stt-c', cost_usd: null, price_per_minute_usd: null });
    expect(d).toMatchObject({ utterances: 36, characters: 5400, characters_left: 100, audio_minutes: 30, cost_usd: 0.0645, unpriced_providers: ['stt-c'], within_limits: true });
  });
});

describe('job progress when piped', () => {
  it('prints a line every 10% or 10 s with the rate and ETA, not one per poll', () => {
    const stderr = new Capture(false);
    let now = 0;
    const p = new JobProgress(new Output({ stdout: new Capture(false), stderr, json: false, quiet: false, verbose: false, noColor: true }), () => now);
    const job = (done: number, status = 'processing'): Job =>
      ({ job_id: 'job_1', status, progress: Math.floor((100 * done) / 100), total_items: 100, completed_items: done, failed_items: 0, created_at: '', completed_at: null }) as unknown as Job;
    for (let i = 0; i <= 50; i++) {
      now = i * 500;
      p.update([job(2 * i, i === 50 ? 'completed' : 'processing')]);
    }
    const lines = stderr.text.trim().split('\n');
    expect(lines).toHaveLength(11);
    expect(lines[1]).toBe('job_1: processing 10% (10/100, 4.0 items/s, ETA 23s)');
    expect(lines.at(-1)).toBe('job_1: completed 100% (100/100)');
  });
});

describe('--help', () => {
  it('lists every exit code, 7 included, on the program and on each command', async () => {
    for (const args of [['--help'], ['eval', 'run', '--help'], ['eval', 'show', '--help'], ['tts', 'say', '--help']]) {
      const t = testContext();
      expect(await t.run(args)).toBe(0);
      expect(t.stdout.text, args.join(' ')).toContain(
        'Exit codes: 0 ok, 1 error, 2 usage, 3 authentication, 4 not found, 5 rate limit/quota, 6 watched job failed/partial, 7 CI gate failed (eval --max-wer or --max-regression exceeded).',
      );
    }
  });
});
