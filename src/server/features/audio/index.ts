/** The audio feature as the other features see it (stored audio: the files the service writes, serves and fetches): they import it through this file only. */
export { readAudioBytes, recoverAudioStore, wavInput, writeAudioOnly, type AudioBlobStore, type PendingBlobs } from './audio-store.js';
export { requestBase, type UrlSigner } from './audio-urls.js';
export { getAudio, insertAudio, type AudioRow } from './repository.js';
export { startAudioRetention, type AudioRetention } from './retention.js';
export { createAudioLinks, type AudioLinkFor, type AudioLinks } from './audio-links.js';
