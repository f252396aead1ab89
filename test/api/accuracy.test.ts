import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';

describe('POST /v1/stt/calculate-accuracy', () => {
  let server: TestServer;
  const post = (body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${server.url}/v1/stt/calculate-accuracy`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });

  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => server.close());

  it('is public and answers the accuracy result', async () => {
    const res = await post({ reference: 'The quick brown fox.', hypothesis: 'the quick brown box' });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      wer: 0.25,
      cer: 0.0526,
      substitutions: 1,
      insertions: 0,
      deletions: 0,
      reference_words: 4,
      hypothesis_words: 4,
      normalizer: { name: 'basic', version: 2 },
    });
  });

  it('takes "normalizer": whisper-en and reports its name and version', async () => {
    const body = { reference: "Mr. Smith won't pay twenty one percent of the colour bill.", hypothesis: 'mister smith will not pay 21% of the color bill' };
    const whisper = await post({ ...body, normalizer: 'whisper-en' });
    expect(whisper.status).toBe(200);
    expect(await whisper.json()).toMatchObject({ wer: 0, cer: 0, reference_words: 10, normalizer: { name: 'whisper-en', version: 1 } });
    const basic = await post({ ...body, normalizer: 'basic' });
    expect(await basic.json()).toMatchObject({ normalizer: { name: 'basic', version: 2 } });
    const raw = (await (await post({ ...body, normalize: false, normalizer: 'whisper-en' })).json()) as Record<string, unknown>;
    expect(raw).not.toHaveProperty('normalizer');
    expect(raw.wer).toBeGreaterThan(0);
  });

  it.each(['whisper', 'BASIC', '', 'whisper-en '])('400 for the unknown normalizer %j', async (normalizer) => {
    const res = await post({ reference: 'a', hypothesis: 'a', normalizer });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { detail: string }).detail).toBe(`Unknown normalizer: ${normalizer}`);
  });

  it('adds the alignment on request and honours normalize:false', async () => {
    const res = await post({ reference: 'Hello world', hypothesis: 'hello world again', alignment: true, normalize: false });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { alignment: unknown[]; substitutions: number; insertions: number };
    expect(body).toMatchObject({ substitutions: 1, insertions: 1 });
    expect(body.alignment).toEqual([
      { op: 'substitute', ref: 'Hello', hyp: 'hello' },
      { op: 'equal', ref: 'world', hyp: 'world' },
      { op: 'insert', ref: null, hyp: 'again' },
    ]);
  });

  it('accepts a key too (public routes ignore it)', async () => {
    const res = await post({ reference: 'a', hypothesis: 'a' }, { authorization: `Bearer ${server.key}` });
    expect(res.status).toBe(200);
  });

  it.each([
    [{ reference: '...', hypothesis: 'x' }, 'Reference must contain at least one word'],
    [{ reference: '   ', hypothesis: '' }, 'Reference must contain at least one word'],
  ])('400 %j → %s', async (body, detail) => {
    const res = await post(body);
    expect(res.status).toBe(400);
    expect(((await res.json()) as { detail: string }).detail).toBe(detail);
  });

  it.each([
    [{ hypothesis: 'x' }],
    [{ reference: 'x' }],
    [{ reference: 1, hypothesis: 'x' }],
    [{ reference: 'x', hypothesis: null }],
    [{ reference: 'x', hypothesis: 'y', normalize: 'yes' }],
    [{ reference: 'x', hypothesis: 'y', alignment: 1 }],
    [{ reference: 'x', hypothesis: 'y', normalizer: 1 }],
    [{ reference: 'x', hypothesis: 'y', normalizer: null }],
    ['{"reference": "x", '],
    ['[]'],
  ])('rejects malformed body %j with 400', async (body) => {
    const res = await post(body);
    expect(res.status).toBe(400);
    expect(typeof ((await res.json()) as { detail: unknown }).detail).toBe('string');
  });

  it('bounds the work of one request', async () => {
    const res = await post({ reference: 'a '.repeat(5001), hypothesis: 'a' });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { detail: string }).detail).toBe('Reference exceeds maximum of 5000 words');
  });

  it('computes a 1,000-word pair', async () => {
    const ref = Array.from({ length: 1000 }, (_, i) => `word${i % 37}`);
    const hyp = ref.map((w, i) => (i % 10 === 0 ? `${w}x` : w));
    const res = await post({ reference: ref.join(' '), hypothesis: hyp.join(' ') });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ substitutions: 100, wer: 0.1, reference_words: 1000 });
  });
});
