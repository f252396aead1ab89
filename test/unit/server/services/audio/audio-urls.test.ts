import { describe, expect, it } from 'vitest';
import { createUrlSigner } from '../../../../../src/server/features/audio/audio-urls.js';

// The one signer of keyless URLs: audio and report URLs share the HMAC scheme but never each other's signatures.
describe('createUrlSigner', () => {
  const secret = Buffer.alloc(32, 3);
  const now = new Date('2026-03-01T12:00:00.250Z');
  const query = (url: string) => {
    const u = new URL(url);
    return { expires: u.searchParams.get('expires') ?? undefined, sig: u.searchParams.get('sig') ?? undefined };
  };

  it('signs audio URLs that it accepts until they expire 24 h later', () => {
    const urls = createUrlSigner(secret);
    const url = urls.audio({ base: 'http://h:1/', audioId: 'aud_abcdefgh', now });
    expect(url).toMatch(/^http:\/\/h:1\/v1\/audio\/aud_abcdefgh\.wav\?expires=\d+&sig=[\w-]+$/);
    expect(urls.verifyAudio({ audioId: 'aud_abcdefgh', ...query(url), now })).toBe('ok');
    expect(urls.verifyAudio({ audioId: 'aud_abcdefgh', ...query(url), now: new Date(now.getTime() + 24 * 3600_000 + 1000) })).toBe('expired');
    expect(urls.verifyAudio({ audioId: 'aud_otherother', ...query(url), now })).toBe('tampered');
    expect(createUrlSigner(Buffer.alloc(32, 4)).verifyAudio({ audioId: 'aud_abcdefgh', ...query(url), now })).toBe('tampered');
  });

  it('gives a memoised audio signature equal to a fresh signer', () => {
    const urls = createUrlSigner(secret);
    const first = urls.audio({ base: 'http://h', audioId: 'smp_spk_one', now });
    expect(urls.audio({ base: 'http://h', audioId: 'smp_spk_one', now: new Date(now.getTime() + 500) })).toBe(first);
    expect(createUrlSigner(secret).audio({ base: 'http://h', audioId: 'smp_spk_one', now })).toBe(first);
  });

  it('keeps report and audio signatures apart', () => {
    const urls = createUrlSigner(secret);
    const report = urls.report({ base: 'http://h', evaluationId: 'eval_abcdefgh', now });
    expect(report).toMatch(/^http:\/\/h\/v1\/evaluations\/eval_abcdefgh\/report\.html\?expires=\d+&sig=/);
    expect(urls.verifyReport({ evaluationId: 'eval_abcdefgh', ...query(report), now })).toBe('ok');
    expect(urls.verifyAudio({ audioId: 'eval_abcdefgh', ...query(report), now })).toBe('tampered');
    const audio = urls.audio({ base: 'http://h', audioId: 'aud_abcdefgh', now });
    expect(urls.verifyReport({ evaluationId: 'aud_abcdefgh', ...query(audio), now })).toBe('tampered');
  });
});
