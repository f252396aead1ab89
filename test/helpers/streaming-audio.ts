// Test audio whose end of speech is known exactly: silence, a tone standing in for speech, silence.

/** 16 kHz mono PCM16: `leadMs` of silence, `speechMs` of a 300 Hz tone, `tailMs` of silence. */
export function toneBurst(opts: { leadMs: number; speechMs: number; tailMs: number; rate?: number; amplitude?: number }): { pcm: Int16Array; sampleRate: number } {
  const rate = opts.rate ?? 16000;
  const n = (ms: number) => Math.round((rate * ms) / 1000);
  const pcm = new Int16Array(n(opts.leadMs) + n(opts.speechMs) + n(opts.tailMs));
  const start = n(opts.leadMs);
  for (let i = 0; i < n(opts.speechMs); i++) pcm[start + i] = Math.round((opts.amplitude ?? 8000) * Math.sin((2 * Math.PI * 300 * i) / rate));
  return { pcm, sampleRate: rate };
}
