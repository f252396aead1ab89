// Binding validation of the vendor rules (issue 14): what a vendor cannot take is refused when the server
// starts, quoting the offending key; and the timeout defaults each binding gets.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { ConfigError, loadServerConfig, parseServerConfig } from '../../../../../src/server/config.js';
import type { ProviderBinding } from '../../../../../src/server/engines/stt/bindings.js';
import { createSttRegistry, settingsOf } from '../../../../../src/server/engines/stt/registry.js';
import { budgetMs } from '../../../../../src/server/engines/stt/settings.js';
import type { SttAudio } from '../../../../../src/server/engines/stt/types.js';

const one = (binding: Record<string, unknown>) => ({ stt: { providers: { 'stt-c': { api_key_env: 'KEY', ...binding } } } });
const bindingOf = (binding: Record<string, unknown>) => parseServerConfig(one(binding)).stt.providers['stt-c'] as ProviderBinding;
const seconds = (durationSeconds: number) => ({ durationSeconds }) as SttAudio;

describe('vendor rules at config validation', () => {
  test.each([
    [{ adapter: 'assemblyai', language: 'tlh' }, '"stt.providers.stt-c.language": AssemblyAI does not support "tlh"'],
    [{ adapter: 'assemblyai', language: 'xx-GB' }, '"stt.providers.stt-c.language": AssemblyAI does not support "xx-GB"'],
    [{ adapter: 'gladia', language: 'tlh' }, '"stt.providers.stt-c.language": Gladia does not support "tlh"'],
    [{ adapter: 'gladia', model: 'solaria-1' }, '"stt.providers.stt-c.model" does not apply to the gladia adapter'],
    [{ adapter: 'google', language: 'haw' }, '"stt.providers.stt-c.language": Google Speech-to-Text does not support "haw"; give a full locale'],
    [{ adapter: 'azure', region: 'westeurope', language: 'english' }, '"stt.providers.stt-c.language": Azure Speech does not support "english"'],
    [{ adapter: 'speechmatics', timeout_per_audio_second_ms: -1 }, '"stt.providers.stt-c.timeout_per_audio_second_ms" must be an integer from 0 to 60000'],
    [{ adapter: 'local-sphinx', api_key_env: undefined, timeout_per_audio_second_ms: 10 }, '"stt.providers.stt-c.timeout_per_audio_second_ms" does not apply to the local-sphinx adapter'],
  ])('%j → %s', (binding, message) => {
    expect(() => parseServerConfig(one(binding))).toThrow(ConfigError);
    expect(() => parseServerConfig(one(binding))).toThrow(message);
  });

  test('the server config file names itself and the key', () => {
    const dir = mkdtempSync(join(tmpdir(), 'voxctl-vendor-cfg-'));
    const file = join(dir, 'voxctl.config.json');
    writeFileSync(file, JSON.stringify(one({ adapter: 'assemblyai', language: 'tlh-Latn' })));
    expect(() => loadServerConfig({ dataDir: dir })).toThrow(`Invalid server config ${file}: "stt.providers.stt-c.language": AssemblyAI does not support "tlh-Latn"`);
  });

  test.each([
    { adapter: 'assemblyai', language: 'en-GB' },
    { adapter: 'assemblyai', language: 'fr' },
    { adapter: 'gladia', language: 'pt-BR' },
    { adapter: 'google', language: 'en' },
    { adapter: 'azure', region: 'westeurope', language: 'de-CH' },
    { adapter: 'deepgram', language: 'multi' },
  ])('accepts %j', (binding) => {
    expect(bindingOf(binding)).toMatchObject(binding);
  });
});

describe('timeouts of a binding', () => {
  const env = () => ({});

  test('job-based vendors: 3 s polls and 120 s + 1 s per second of audio; synchronous ones: 60 s', () => {
    for (const adapter of ['assemblyai', 'revai', 'speechmatics', 'gladia'] as const) {
      const s = settingsOf(bindingOf({ adapter }), adapter, env);
      expect(s.pollIntervalMs, adapter).toBe(3000);
      expect(budgetMs(s, seconds(300)), adapter).toBe(120_000 + 300_000);
    }
    for (const adapter of ['deepgram', 'openai', 'elevenlabs', 'google'] as const) {
      expect(budgetMs(settingsOf(bindingOf({ adapter }), adapter, env), seconds(300)), adapter).toBeUndefined();
    }
  });

  test('no budget exceeds one hour', () => {
    const s = settingsOf(bindingOf({ adapter: 'speechmatics' }), 'speechmatics', env);
    expect(budgetMs(s, seconds(10 * 3600))).toBe(3_600_000);
  });

  test('an explicit timeout_ms is fixed unless timeout_per_audio_second_ms is given too', () => {
    expect(budgetMs(settingsOf(bindingOf({ adapter: 'gladia', timeout_ms: 5000 }), 'gladia', env), seconds(60))).toBeUndefined();
    const scaled = settingsOf(bindingOf({ adapter: 'deepgram', timeout_ms: 5000, timeout_per_audio_second_ms: 500 }), 'deepgram', env);
    expect(budgetMs(scaled, seconds(60))).toBe(5000 + 30_000);
  });

  test("the registry's timer is the ceiling for scaled budgets and the timeout itself otherwise", () => {
    const registry = createSttRegistry(
      parseServerConfig({
        stt: {
          providers: {
            'stt-b': { adapter: 'deepgram', api_key_env: 'K' },
            'stt-c': { adapter: 'assemblyai', api_key_env: 'K' },
            'stt-g': { adapter: 'speechmatics', api_key_env: 'K', timeout_ms: 90_000 },
          },
        },
      }),
      { env },
    );
    expect(registry.get('stt-b')!.timeoutMs).toBe(60_000);
    expect(registry.get('stt-c')!.timeoutMs).toBe(3_600_000);
    expect(registry.get('stt-g')!.timeoutMs).toBe(90_000);
  });

  test('the local recogniser gets 60 s plus 1 s per second of audio, unless timeout_ms fixes it (a call runs minutes)', () => {
    const scaled = createSttRegistry(parseServerConfig({ stt: { providers: { 'stt-h': { adapter: 'local-sphinx' } } } }), { env });
    for (const id of ['local-sphinx', 'stt-h']) expect(scaled.get(id)).toMatchObject({ timeoutMs: 60_000, timeoutPerAudioSecondMs: 1000 });
    const fixed = createSttRegistry(parseServerConfig({ stt: { providers: { 'local-sphinx': { timeout_ms: 5000 }, 'stt-h': { adapter: 'local-sphinx', timeout_ms: 7000 } } } }), { env });
    expect(fixed.get('local-sphinx')).toMatchObject({ timeoutMs: 5000, timeoutPerAudioSecondMs: 0 });
    expect(fixed.get('stt-h')!.timeoutMs).toBe(7000);
    expect(fixed.get('stt-h')!.timeoutPerAudioSecondMs ?? 0).toBe(0);
  });
});
