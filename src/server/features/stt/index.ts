/** The stt feature as the other features see it (speech recognition: transcription, streaming and accuracy): they import it through this file only. */
export { type StreamedResult } from './stt-streaming.js';
