import { describe, expect, it } from 'vitest';
import { parseEvaluationRequest, type RequestContext } from '../../../../src/server/features/evaluations/request.js';
import type { CreateEvaluationRequest } from '../../../../src/shared/schemas/evaluations.js';

// The body parsed once into what was asked (issue 32 item 2): source × hearing × probes.
const ctx = (over: Partial<RequestContext> = {}): RequestContext => ({
  isConfigured: () => true,
  canStream: (p) => p === 'stt-b',
  datasetTexts: async (id) => (id === 'ds_1' ? ['from the dataset'] : Promise.reject(new Error(`no dataset ${id}`))),
  ...over,
});
const parse = (body: Partial<CreateEvaluationRequest>, c = ctx()) => parseEvaluationRequest({ providers: ['local-sphinx'], ...body } as CreateEvaluationRequest, c);
const message = (body: Partial<CreateEvaluationRequest>, c?: RequestContext) => parse(body, c).then(() => 'parsed', (e: Error) => e.message);

describe('parseEvaluationRequest', () => {
  it('parses texts and a dataset into a synthesised source, a corpus into a recorded one', async () => {
    const speakers = { per_group: 2 };
    expect((await parse({ texts: ['hello world'], speakers })).source).toEqual({ kind: 'synthesised', texts: ['hello world'], speakers });
    expect((await parse({ dataset_id: 'ds_1', speakers })).source).toEqual({ kind: 'synthesised', texts: ['from the dataset'], speakers });
    expect((await parse({ corpus_id: 'cor_1', group_by: 'speaker', sample: { size: 3, seed: 7 } })).source).toEqual({
      kind: 'corpus',
      corpusId: 'cor_1',
      groupBy: 'speaker',
      sample: { size: 3, seed: 7 },
    });
  });

  it('says how the providers hear the audio: batch by default, streaming at pace 1 unless given', async () => {
    const base = { texts: ['hello'], speakers: { per_group: 1 } };
    expect((await parse(base)).hearing).toEqual({ mode: 'batch', pace: null });
    expect((await parse({ ...base, providers: ['stt-b'], mode: 'streaming' })).hearing).toEqual({ mode: 'streaming', pace: 1 });
    expect((await parse({ ...base, providers: ['stt-b'], mode: 'streaming', pace: 2 })).hearing).toEqual({ mode: 'streaming', pace: 2 });
  });

  it('fills the common parts once for every source: canonical conditions, the normaliser, no probes when none', async () => {
    for (const body of [{ texts: ['hello'], speakers: { per_group: 1 } }, { corpus_id: 'cor_1' }]) {
      const r = await parse({ ...body, conditions: ['noise:5.0'], normalizer: 'whisper-en', name: 'n' });
      expect(r).toMatchObject({ conditions: ['noise:5'], providers: ['local-sphinx'], name: 'n', baselineId: null });
      expect(r.normalizer.name).toBe('whisper-en');
      expect(r).not.toHaveProperty('probes');
    }
  });

  it('refuses each source the fields of the other, first after the source', async () => {
    expect(await message({ corpus_id: 'cor_1', speakers: { per_group: 1 }, name: '' })).toBe('speakers does not apply to a corpus');
    expect(await message({ texts: ['hello'], speakers: { per_group: 1 }, group_by: 'gender', name: '' })).toBe('group_by applies to a corpus; use speakers.group_by');
    expect(await message({ texts: ['hello'], sample: { size: 1 } })).toBe('sample applies to a corpus');
    expect(await message({ texts: ['hello'] })).toBe('speakers is required with texts or dataset_id');
    expect(await message({ corpus_id: 'cor_1', probes: { entities: { types: ['number'] } } } as Partial<CreateEvaluationRequest>)).toBe('entities does not apply to a corpus');
    expect(await message({ texts: ['hello'], corpus_id: 'cor_1' })).toBe('Provide exactly one of texts, dataset_id or corpus_id');
  });

  it("reports a text's error before a provider's, and a provider the server cannot call or stream to", async () => {
    const speakers = { per_group: 1 };
    expect(await message({ texts: [''], speakers, providers: ['nope'] })).toMatch(/^Text 0: /);
    expect(await message({ texts: ['hello'], speakers, providers: ['nope'] })).toBe('Unknown provider: nope');
    expect(await message({ texts: ['hello'], speakers }, ctx({ isConfigured: () => false }))).toBe('Provider not configured: local-sphinx');
    expect(await message({ texts: ['hello'], speakers, mode: 'streaming' })).toBe('Provider does not stream: local-sphinx');
    expect(await message({ texts: ['hello'], speakers, pace: 2 })).toBe('pace applies to streaming mode');
  });
});
