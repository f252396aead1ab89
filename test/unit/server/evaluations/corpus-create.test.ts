import { describe, expect, it } from 'vitest';
import { corpusBlock, corpusGroupBy, corpusGroupValue, sampleUtterances } from '../../../../src/server/features/evaluations/corpus-create.js';
import { evaluationSource, SOURCE_MESSAGE } from '../../../../src/server/features/evaluations/source.js';

const utt = (id: string, speaker: string | null, metadata: Record<string, string> = {}) => ({ utteranceId: id, speaker, reference: 'x', metadata, audioId: `aud_${id}` });

describe('corpus evaluations: the pure rules (DESIGN §10.5)', () => {
  it('needs exactly one source, whatever else the body holds', () => {
    expect(evaluationSource({ texts: [] })).toBe('texts');
    expect(evaluationSource({ corpus_id: 'cor_1', speakers: {} })).toBe('corpus_id');
    for (const body of [{}, null, [], 'texts', { texts: ['a'], corpus_id: 'c' }, { dataset_id: 'd', corpus_id: 'c' }, { texts: ['a'], dataset_id: 'd' }]) {
      expect(() => evaluationSource(body)).toThrow(SOURCE_MESSAGE);
    }
  });

  it('groups by gender when the corpus has it, else by speaker; any metadata field on request', () => {
    expect(corpusGroupBy(undefined, ['age', 'gender'])).toBe('gender');
    expect(corpusGroupBy(undefined, ['chapter'])).toBe('speaker');
    expect(corpusGroupBy('chapter', ['chapter'])).toBe('chapter');
    expect(corpusGroupBy('speaker', [])).toBe('speaker');
    expect(() => corpusGroupBy('accent', ['chapter'])).toThrow('Unknown group_by for this corpus: accent');
    expect(corpusGroupValue(utt('a', 's1', { gender: 'female' }), 'gender')).toBe('female');
    expect(corpusGroupValue(utt('a', null), 'gender')).toBe('unknown');
    expect(corpusGroupValue(utt('a', null), 'speaker')).toBe('unknown');
  });

  it('blocks by speaker; an utterance without one is its own block', () => {
    expect(corpusBlock(utt('a', 's1'))).toBe('s1');
    expect(corpusBlock(utt('a', null))).toBe('utterance:a');
    expect(corpusBlock(utt('b', null))).not.toBe(corpusBlock(utt('a', null)));
  });

  it('samples by seed, independent of manifest order, kept in corpus order', () => {
    const corpus = Array.from({ length: 50 }, (_, i) => utt(`u${i}`, `s${i % 5}`));
    const a = sampleUtterances(corpus, { size: 10, seed: 4 }).map((u) => u.utteranceId);
    expect(a).toHaveLength(10);
    expect(sampleUtterances([...corpus].reverse(), { size: 10, seed: 4 }).map((u) => u.utteranceId).reverse()).toEqual(a);
    expect(a).toEqual([...a].sort((x, y) => Number(x.slice(1)) - Number(y.slice(1))));
    expect(sampleUtterances(corpus, { size: 10, seed: 5 }).map((u) => u.utteranceId)).not.toEqual(a);
    expect(sampleUtterances(corpus, { size: 10 }).map((u) => u.utteranceId)).toEqual(sampleUtterances(corpus, { size: 10, seed: 0 }).map((u) => u.utteranceId));
    expect(sampleUtterances(corpus, { size: 80 })).toHaveLength(50);
    expect(sampleUtterances(corpus, undefined)).toHaveLength(50);
  });
});
