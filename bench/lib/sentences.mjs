// Plain English sentences the benchmarks synthesise and recognise: every word in PocketSphinx's dictionary,
// one clause each, so WER differences come from the audio, not from out-of-vocabulary words.

/** Ten sentences of everyday English. */
export const SENTENCES = [
  'The quick brown fox jumps over the lazy dog.',
  'Please call me back after the meeting tomorrow morning.',
  'It is raining in the city today.',
  'She sells sea shells by the sea shore.',
  'The train to the airport leaves at seven.',
  'We need more paper for the printer upstairs.',
  'My brother bought a new car last week.',
  'Turn left at the second traffic light.',
  'The children played in the park all afternoon.',
  'Could you send me the report by Friday?',
];
