/** The synthesis feature as the other features see it (the speakers catalogue and text-to-speech): they import it through this file only. */
export { SAMPLE_PREFIX } from './samples.js';
export { countSpeakers, getSpeaker, listSpeakers, speakerValueCounts, type SpeakerRow } from './speakers-repository.js';
export { speakerIds } from './speakers.js';
export { renderSpeech, speakerVoice } from './synthesis.js';
