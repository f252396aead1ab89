/** One seeded speaker as a tuple, in the `speakers` table's column order (keeps the seed module small). */
export type SpeakerSeedRow = readonly [
  id: string,
  gender: string,
  region: string,
  accent: string,
  age_range: string,
  native_language: string,
  engine: 'flite' | 'espeak',
  voice: string,
  variant: string | null,
  pitch: number,
  rate: number,
];
