// The public library entry of voxctl: the typed client and its error types.
export { createClient, paginate } from './client.js';
export type { ClientOptions, CorpusUploadInput, Paging, RateLimitHeaders, UploadFile, VoxClient } from './client.js';
export { ApiRequestError, ERROR_CODES, isErrorCode, NetworkError, type ErrorCode } from './errors.js';
export type * from '../shared/schemas/speakers.js';
export type * from '../shared/schemas/tts.js';
export type * from '../shared/schemas/stt.js';
export type * from '../shared/schemas/datasets.js';
export type * from '../shared/schemas/users.js';
export type * from '../shared/schemas/system.js';
export type * from '../shared/schemas/evaluations.js';
export type * from '../shared/schemas/corpora.js';
export type { PageOf, ErrorBody } from '../shared/schemas/common.js';
