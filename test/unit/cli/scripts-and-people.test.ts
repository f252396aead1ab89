import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CommanderError } from 'commander';
import { describe, expect, it } from 'vitest';
import { ApiRequestError, NetworkError } from '../../../src/client/errors.js';
import { explainApiError } from '../../../src/cli/core/api-errors.js';
import { valueKind } from '../../../src/cli/completion/values.js';
import { requestLimits } from '../../../src/cli/usage/usage.js';
import { reportFailures } from '../../../src/cli/stt/stt.js';
import { fileNameFor, isCompleteWav } from '../../../src/cli/core/downloads.js';
import { fitWidths, Output } from '../../../src/cli/core/output.js';
import { exitCodeFor } from '../../../src/cli/program.js';
import { retryAfter429 } from '../../../src/cli/core/retry.js';
import { CliError } from '../../../src/cli/core/errors.js';
import { CONFIG_FILE_NAME } from '../../../src/server/config.js';
import { Capture, testContext } from '../../helpers/cli-context.js';
import { probeService } from '../../../src/cli/core/local-server.js';
import { SPINNER_DELAY_MS, withSpinner } from '../../../src/cli/core/session.js';

describe('errors: one shape for scripts, messages that say what to do', () => {
  it('a 400 of the service exits 2 like the CLI’s own validation, with a JSON error carrying status and request id', () => {
    const m = exitCodeFor(new ApiRequestError({ status: 400, detail: 'Text must not be empty', requestId: 'req_9' }));
    expect(m.code).toBe(2);
    expect(m.error).toEqual({ code: 'validation_failed', message: 'Text must not be empty', status: 400, request_id: 'req_9' });
  });

  it('uses the server’s code when the body has one, else a stable code per status', () => {
    expect(exitCodeFor(new ApiRequestError({ status: 404, detail: 'Job not found', code: 'job_not_found' })).error?.code).toBe('job_not_found');
    const codes = [401, 403, 404, 413, 500].map((status) => exitCodeFor(new ApiRequestError({ status, detail: 'x' })).error?.code);
    expect(codes).toEqual(['authentication_failed', 'forbidden', 'not_found', 'payload_too_large', 'server_error']);
    expect(exitCodeFor(new ApiRequestError({ status: 429, detail: 'Rate limit exceeded' })).error?.code).toBe('rate_limited');
    expect(exitCodeFor(new ApiRequestError({ status: 429, code: 'quota_exceeded', detail: 'Character quota exceeded for this billing period' })).error?.code).toBe('quota_exceeded');
    expect(exitCodeFor(new NetworkError('http://127.0.0.1:9', new Error('refused'))).error).toMatchObject({ code: 'network_error' });
    expect(exitCodeFor(new CommanderError(1, 'commander.unknownOption', "error: unknown option '--x'")).error).toEqual({ code: 'usage_error', message: "unknown option '--x'" });
    expect(exitCodeFor(new CliError('no', { exitCode: 3, hint: 'log in' })).error).toEqual({ code: 'authentication_failed', message: 'no', hint: 'log in' });
  });

  it('a read-only key is told so, not sent to billing', () => {
    const m = exitCodeFor(new ApiRequestError({ status: 403, detail: 'Insufficient permissions' }));
    expect(m.code).toBe(3);
    expect(m.message).toContain('this key is read-only');
    expect(m.message).not.toContain('billing');
  });

  it('names the speaker and the text’s length', () => {
    const nf = explainApiError(new ApiRequestError({ status: 404, code: 'speaker_not_found', detail: 'Speaker not found', requestId: 'r' }), { speakerId: 'spk_x' }) as ApiRequestError;
    expect(nf.detail).toBe('Speaker not found: spk_x');
    expect(nf.requestId).toBe('r');
    const long = explainApiError(new ApiRequestError({ status: 400, code: 'text_too_long', detail: 'Text exceeds maximum length of 2000 characters' }), { text: '😀'.repeat(2001) }) as ApiRequestError;
    expect(long.detail).toContain('this text has 2001');
    expect(long.detail).toContain('voxctl batch submit');
  });
});

describe('downloads', () => {
  it('pads names to the width of the largest index', () => {
    expect([0, 7, 149].map((i) => fileNameFor(i, 149))).toEqual(['000.wav', '007.wav', '149.wav']);
    expect(fileNameFor(3, 9)).toBe('3.wav');
    expect(fileNameFor(3, 10)).toBe('03.wav');
  });

  it('a WAV is complete only when its RIFF size matches the file', () => {
    const dir = mkdtempSync(join(tmpdir(), 'voxctl-wav-'));
    const wav = Buffer.alloc(48);
    wav.write('RIFF', 0, 'latin1');
    wav.writeUInt32LE(40, 4);
    wav.write('WAVE', 8, 'latin1');
    writeFileSync(join(dir, 'ok.wav'), wav);
    writeFileSync(join(dir, 'cut.wav'), wav.subarray(0, 46));
    expect(isCompleteWav(join(dir, 'ok.wav'))).toBe(true);
    expect(isCompleteWav(join(dir, 'cut.wav'))).toBe(false);
    expect(isCompleteWav(join(dir, 'absent.wav'))).toBe(false);
  });

  it('waits out Retry-After (with a message), but not a quota 429, and only up to the bound', async () => {
    const t = testContext();
    const slept: number[] = [];
    t.ctx.clock = { now: () => new Date(), sleep: async (ms) => void slept.push(ms) };
    const out = new Output({ stdout: t.stdout, stderr: t.stderr, json: false, quiet: false, verbose: false, noColor: true });
    let calls = 0;
    const value = await retryAfter429(t.ctx, out, async () => {
      if (++calls < 3) throw new ApiRequestError({ status: 429, detail: 'Rate limit exceeded', retryAfter: 2 });
      return 'ok';
    });
    expect(value).toBe('ok');
    expect(slept).toEqual([2000, 2000]);
    expect(t.stderr.text).toContain('waiting 2 s');
    const quota = new ApiRequestError({ status: 429, code: 'quota_exceeded', detail: 'Character quota exceeded for this billing period', retryAfter: 1 });
    await expect(retryAfter429(t.ctx, out, () => Promise.reject(quota))).rejects.toBe(quota);
    const long = new ApiRequestError({ status: 429, detail: 'Rate limit exceeded', retryAfter: 50 });
    await expect(retryAfter429(t.ctx, out, () => Promise.reject(long), 60_000)).rejects.toBe(long);
  });
});

describe('tables fit the terminal', () => {
  it('shrinks the widest column first and keeps narrow ones', () => {
    expect(fitWidths([10, 2002, 12], 75)).toEqual([10, 53, 12]);
    expect(fitWidths([10, 20], 75)).toEqual([10, 20]);
    const w = fitWidths([100, 100, 8], 60);
    expect(w.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(60);
    expect(w[2]).toBe(8);
  });

  it('a 2,000-character transcript stays on one line of a terminal table, cut with an ellipsis', async () => {
    const stdout = new Capture(true);
    stdout.columns = 80;
    const out = new Output({ stdout, stderr: new Capture(), json: false, quiet: false, verbose: false, noColor: true });
    await out.table([{ p: 'local-sphinx', t: 'word '.repeat(400) + '\nend' }], [
      { header: 'provider', get: (r) => r.p },
      { header: 'transcript', get: (r) => r.t },
    ]);
    const lines = stdout.text.trimEnd().split('\n');
    expect(lines).toHaveLength(5);
    for (const l of lines) expect([...l].length).toBeLessThanOrEqual(80);
    expect(stdout.text).toContain('…');
  });
});

describe('stt: failures are reported, not hidden', () => {
  const ok = { transcript: 'hi', latency_ms: 5, confidence: null };
  const nc = { transcript: null, latency_ms: 0, confidence: null, error: { code: 'provider_not_configured' as const, message: 'x' } };
  it('names unconfigured providers in one line with the config file, and fails when every provider failed', () => {
    const err = new Capture();
    const out = new Output({ stdout: new Capture(), stderr: err, json: false, quiet: false, verbose: false, noColor: true });
    expect(() => reportFailures(out, { 'local-sphinx': ok, 'stt-b': nc, 'stt-c': nc }, '/data/voxctl.config.json')).not.toThrow();
    expect(err.text.trim().split('\n')).toHaveLength(1);
    expect(err.text).toContain('stt-b, stt-c');
    expect(err.text).toContain('/data/voxctl.config.json');
    expect(() => reportFailures(out, { 'stt-b': nc }, 'f')).toThrow(CliError);
  });

  it('the CLI names the server’s config file as the server does', () => {
    expect(CONFIG_FILE_NAME).toBe('voxctl.config.json');
  });
});

describe('usage shows request limits', () => {
  const usage = { characters_used: 0, characters_limit: 1_000_000, requests_today: 42, period_start: '2026-11-01', period_end: '2026-11-30', subscription_tier: 'pro' as const };
  it('minute window from the headers, day window from the tier and requests_today', () => {
    expect(requestLimits(usage, { limit: 300, remaining: 295, reset: 1 })).toEqual({
      per_minute: { limit: 300, used: 5, remaining: 295 },
      per_day: { limit: 10_000, used: 42, remaining: 9_958 },
    });
    expect(requestLimits({ ...usage, subscription_tier: 'enterprise' }, undefined)).toEqual({ per_minute: null, per_day: { limit: null, used: 42, remaining: null } });
  });
});

describe('completion knows which values to ask the service for', () => {
  it.each([
    [['tts', 'say', '--speaker'], 'speaker'],
    [['speakers', 'show'], 'speaker'],
    [['config', 'set', 'speaker'], 'speaker'],
    [['speakers', 'list', '--gender'], 'facet'],
    [['--profile'], 'profile'],
    [['profile', 'use'], 'profile'],
    [['stt', 'compare', 'a.wav', '--providers'], 'provider'],
  ])('%j → %s', (words, kind) => {
    expect(valueKind(words)?.kind).toBe(kind);
  });

  it('leaves commands and plain options to the static words', () => {
    expect(valueKind(['speakers'])).toBeUndefined();
    expect(valueKind(['speakers', 'list', '--gender', 'Female'])).toBeUndefined();
    expect(valueKind(['--profile', 'prod', 'tts'])).toBeUndefined();
  });
});

describe('liveness: any HTTP answer means a service is running', () => {
  it('a 429 without a health body still counts as an answer; a closed port does not', async () => {
    const { createServer } = await import('node:http');
    const srv = createServer((_req, res) => res.writeHead(429, { 'retry-after': '30' }).end('{"detail":"Rate limit exceeded"}'));
    await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
    const port = (srv.address() as { port: number }).port;
    try {
      expect(await probeService(`http://127.0.0.1:${port}`)).toEqual({ status: 429 });
    } finally {
      await new Promise((r) => srv.close(r));
    }
    expect(await probeService(`http://127.0.0.1:${port}`)).toBeUndefined();
  });
});

describe('spinner for long waits only', () => {
  it('draws on a terminal stderr once a wait passes the delay, never for a quick answer or with --json', async () => {
    // Capture(true) has the cursor methods of a tty.WriteStream that ora draws with.
    const make = (json: boolean) => {
      const stderr = new Capture(true);
      return { stderr, out: new Output({ stdout: new Capture(), stderr, json, quiet: false, verbose: false, noColor: true }) };
    };
    const quick = make(false);
    expect(await withSpinner(quick.out, 'Transcribing', async () => 1)).toBe(1);
    expect(quick.stderr.text).toBe('');
    const slow = make(false);
    await withSpinner(slow.out, 'Transcribing', () => new Promise((r) => setTimeout(r, SPINNER_DELAY_MS + 400)));
    expect(slow.stderr.text).toContain('Transcribing');
    const json = make(true);
    await withSpinner(json.out, 'Transcribing', () => new Promise((r) => setTimeout(r, SPINNER_DELAY_MS + 400)));
    expect(json.stderr.text).toBe('');
  });
});
