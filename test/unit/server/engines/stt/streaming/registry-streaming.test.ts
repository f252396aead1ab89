import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadServerConfig } from '../../../../../../src/server/config.js';
import { createSttRegistry } from '../../../../../../src/server/engines/stt/registry.js';

function config(providers: object) {
  const dir = mkdtempSync(join(tmpdir(), 'voxctl-streamreg-'));
  const file = join(dir, 'voxctl.config.json');
  writeFileSync(file, JSON.stringify({ stt: { providers } }));
  return () => loadServerConfig({ dataDir: dir, configPath: file });
}

describe('streaming bindings (DESIGN §13.1)', () => {
  it('streaming_model defaults to model; the registry says which providers stream', () => {
    const cfg = config({
      'stt-b': { adapter: 'deepgram', api_key_env: 'K', model: 'nova-3' },
      'stt-c': { adapter: 'deepgram', api_key_env: 'K', model: 'nova-3', streaming_model: 'nova-3-medical' },
      'stt-d': { adapter: 'assemblyai', api_key_env: 'K' },
      'stt-e': { adapter: 'speechmatics', api_key_env: 'K' },
      'stt-f': { adapter: 'openai', base_url: 'http://127.0.0.1:9' },
    })();
    const registry = createSttRegistry(cfg, { env: () => ({ K: 'key' }) });
    expect(registry.get('stt-b')?.streaming?.model).toBe('nova-3');
    expect(registry.get('stt-c')?.streaming?.model).toBe('nova-3-medical');
    expect(registry.get('stt-d')?.streaming?.model).toBe('universal-streaming-english');
    expect(registry.get('stt-f')?.streaming).toBeUndefined();
    const streaming = Object.fromEntries(registry.states().map((s) => [s.id, s.streaming]));
    expect(streaming).toMatchObject({ 'stt-b': true, 'stt-c': true, 'stt-d': true, 'stt-e': true, 'stt-f': false, 'stt-g': false, 'local-sphinx': true });
  });

  it('streaming_model does not apply to local-sphinx and must be a non-empty string', () => {
    expect(config({ 'stt-b': { adapter: 'local-sphinx', streaming_model: 'x' } })).toThrow(/: "stt.providers.stt-b.streaming_model" does not apply to the local-sphinx adapter$/);
    expect(config({ 'stt-b': { adapter: 'deepgram', api_key_env: 'K', streaming_model: '' } })).toThrow(/: "stt.providers.stt-b.streaming_model" must be a non-empty string$/);
  });
});
