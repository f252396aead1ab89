/** Corpus layouts and manifest rules (DESIGN §10), shared by the service and the CLI. */
export { CORPUS_MESSAGES } from './messages.js';
export { detectCorpusLayout, type DetectedLayout } from './layout.js';
export { folderFiles, MANIFEST_LIMITS, type ManifestFiles, type ReadText } from './manifest-files.js';
export { parseCorpus, checkReference, type CorpusUtterance, type ParsedCorpus, type CorpusParseOptions } from './manifests.js';
export { normalizeArchivePath, isArchiverDebris, commonTopFolder } from './paths.js';
