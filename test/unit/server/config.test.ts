import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { ConfigError, loadServerConfig, parseServerConfig } from '../../../src/server/config.js';
import { createSttRegistry } from '../../../src/server/engines/stt/registry.js';
import { createRuntime } from '../../../src/server/runtime.js';

const binding = (extra: Record<string, unknown> = {}) => ({ stt: { providers: { 'stt-b': { adapter: 'deepgram', api_key_env: 'DG_KEY', ...extra } } } });

describe('parseServerConfig', () => {
  test('accepts a binding of every adapter kind', () => {
    const cfg = parseServerConfig({
      stt: {
        providers: {
          'stt-a-model-1': { adapter: 'openai', model: 'whisper-1', api_key_env: 'OPENAI_API_KEY' },
          'stt-a-model-2': { adapter: 'openai', model: 'ggml-base.en', base_url: 'http://127.0.0.1:8080/', path: '/inference' },
          'stt-b': { adapter: 'deepgram', api_key_env: 'DEEPGRAM_API_KEY', language: 'en-US', timeout_ms: 30000 },
          'stt-c': { adapter: 'azure', region: 'westeurope', api_key_env: 'AZURE_SPEECH_KEY' },
          'stt-h': { adapter: 'local-sphinx', timeout_ms: 9000 },
          'local-sphinx': { max_concurrent: 2 },
        },
      },
    });
    expect(cfg.stt.providers['stt-a-model-2']).toEqual({ adapter: 'openai', model: 'ggml-base.en', base_url: 'http://127.0.0.1:8080', path: '/inference' });
    expect(cfg.stt.localSphinx).toEqual({ max_concurrent: 2 });
  });

  test.each([
    [{ sst: {} }, 'unknown key "sst"'],
    [{ stt: { providers: { 'stt-z': { adapter: 'openai' } } } }, 'unknown provider "stt.providers.stt-z"'],
    [binding({ adapter: 'whisper' }), '"stt.providers.stt-b.adapter" must be one of'],
    [binding({ modle: 'nova-3' }), 'unknown key "stt.providers.stt-b.modle"'],
    [binding({ api_key: 'sk-123' }), '"stt.providers.stt-b.api_key": secrets are not read from the config file'],
    [binding({ api_key_env: 'not a name' }), '"stt.providers.stt-b.api_key_env" must be an environment variable name'],
    [binding({ timeout_ms: '60s' }), '"stt.providers.stt-b.timeout_ms" must be an integer'],
    [binding({ base_url: 'ftp://x' }), '"stt.providers.stt-b.base_url" must be an absolute http(s) URL'],
    [binding({ path: '/inference' }), '"stt.providers.stt-b.path" applies to the openai adapter only'],
    [{ stt: { providers: { 'stt-b': { adapter: 'deepgram' } } } }, '"stt.providers.stt-b.api_key_env" is required'],
    [{ stt: { providers: { 'stt-c': { adapter: 'azure', api_key_env: 'K' } } } }, 'needs "region" or "base_url"'],
    [{ stt: { providers: { 'local-sphinx': { adapter: 'openai' } } } }, 'local-sphinx is always PocketSphinx'],
    [{ stt: { providers: { 'stt-h': { adapter: 'local-sphinx', api_key_env: 'K' } } } }, 'does not apply to the local-sphinx adapter'],
  ])('%j → %s', (raw, message) => {
    expect(() => parseServerConfig(raw)).toThrow(ConfigError);
    expect(() => parseServerConfig(raw)).toThrow(message);
  });
});

describe('loadServerConfig', () => {
  const dir = mkdtempSync(join(tmpdir(), 'voxctl-cfg-'));

  test('no file in the data dir → nothing bound; an explicit missing path is an error', () => {
    expect(loadServerConfig({ dataDir: dir })).toEqual({ stt: { providers: {}, localSphinx: {} } });
    expect(() => loadServerConfig({ dataDir: dir, configPath: join(dir, 'nope.json') })).toThrow('Config file not found');
  });

  test('reads voxctl.config.json from the data dir; bad JSON names the file', () => {
    const d = mkdtempSync(join(tmpdir(), 'voxctl-cfg-'));
    writeFileSync(join(d, 'voxctl.config.json'), JSON.stringify(binding()));
    expect(loadServerConfig({ dataDir: d }).stt.providers['stt-b']).toMatchObject({ adapter: 'deepgram' });
    writeFileSync(join(d, 'voxctl.config.json'), '{ nope');
    expect(() => loadServerConfig({ dataDir: d })).toThrow(`Invalid server config ${join(d, 'voxctl.config.json')}: not valid JSON`);
  });

  test('the server refuses to start with a bad config, quoting the key', async () => {
    const d = mkdtempSync(join(tmpdir(), 'voxctl-cfg-'));
    const file = join(d, 'bad.json');
    writeFileSync(file, JSON.stringify(binding({ region: 'x' })));
    await expect(createRuntime({ dataDir: d, host: '127.0.0.1', port: 0, allowPrivateAudioUrls: false, logLevel: 'silent', configPath: file })).rejects.toThrow(
      '"stt.providers.stt-b.region" applies to the azure adapter only',
    );
  });
});

describe('registry', () => {
  test('reads the key variable at call time and reports states without secrets', () => {
    const env: NodeJS.ProcessEnv = {};
    const reg = createSttRegistry({ stt: { providers: { 'stt-b': { adapter: 'deepgram', api_key_env: 'DG_KEY', model: 'nova-2' } }, localSphinx: {} } }, { env: () => env });
    expect(reg.states().find((s) => s.id === 'stt-b')).toMatchObject({ adapter: 'deepgram', model: 'nova-2', state: 'not_configured', detail: 'DG_KEY is not set' });
    env.DG_KEY = 'secret-value';
    const states = reg.states();
    expect(states.find((s) => s.id === 'stt-b')).toMatchObject({ state: 'ready' });
    expect(states.find((s) => s.id === 'stt-c')).toMatchObject({ adapter: null, state: 'not_configured' });
    expect(JSON.stringify(states)).not.toContain('secret-value');
    expect(reg.get('stt-c')).toBeUndefined();
    expect(reg.get('local-sphinx')?.adapter.adapter).toBe('local-sphinx');
  });
});

describe('docs/stt-providers.md', () => {
  test('every JSON example is a valid server config', async () => {
    const { readFileSync } = await import('node:fs');
    const md = readFileSync(new URL('../../../docs/stt-providers.md', import.meta.url), 'utf8');
    const blocks = [...md.matchAll(/```json\n([\s\S]*?)```/g)].map((m) => m[1] as string);
    expect(blocks.length).toBeGreaterThanOrEqual(2);
    const first = parseServerConfig(JSON.parse(blocks[0]!));
    // The first example binds all nine spec tokens.
    expect(Object.keys(first.stt.providers).sort()).toEqual(['stt-a-model-1', 'stt-a-model-2', 'stt-b', 'stt-c', 'stt-d', 'stt-e', 'stt-f', 'stt-g', 'stt-h']);
    for (const b of blocks) expect(() => parseServerConfig(JSON.parse(b))).not.toThrow();
  });
});

describe('price_per_minute_usd (DESIGN §11.6)', () => {
  test('a price ≥ 0 is kept on the binding and shown with the provider; none is built in', () => {
    const cfg = parseServerConfig({
      stt: { providers: { 'stt-b': { adapter: 'deepgram', api_key_env: 'DG_KEY', price_per_minute_usd: 0.0043 }, 'stt-c': { adapter: 'deepgram', api_key_env: 'DG_KEY', price_per_minute_usd: 0 }, 'local-sphinx': { price_per_minute_usd: 0.001 } } },
    });
    expect(cfg.stt.providers['stt-b']!.price_per_minute_usd).toBe(0.0043);
    expect(cfg.stt.localSphinx.price_per_minute_usd).toBe(0.001);
    const states = createSttRegistry({ stt: cfg.stt }, { env: () => ({ DG_KEY: 'k' }) }).states();
    expect(states.find((s) => s.id === 'stt-b')!.price_per_minute_usd).toBe(0.0043);
    expect(states.find((s) => s.id === 'stt-c')!.price_per_minute_usd).toBe(0);
    expect(states.find((s) => s.id === 'local-sphinx')!.price_per_minute_usd).toBe(0.001);
    expect(states.find((s) => s.id === 'stt-d')).not.toHaveProperty('price_per_minute_usd');
  });

  test.each([-0.01, '0.004', Number.POSITIVE_INFINITY, null])('refuses %s, naming the key', (price) => {
    expect(() => parseServerConfig(binding({ price_per_minute_usd: price }))).toThrow(
      new ConfigError('"stt.providers.stt-b.price_per_minute_usd" must be a number ≥ 0 (USD per minute of audio)'),
    );
  });
});
