/** The corpora feature as the other features see it (recorded corpora: archive upload, extraction and decoding): they import it through this file only. */
export { getCorpusRow, listCorpusUploadPrefixes, listCorpusUtteranceRows } from './repository.js';
