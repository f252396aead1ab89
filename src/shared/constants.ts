/**
 * The numbers and names of the API that both the service and the CLI need, written once. Plain data
 * with no imports (no TypeBox): the CLI reads them at start-up without loading the schemas, and the
 * schemas in `schemas/` derive their literals and bounds from here.
 */

/** Port of `voxctl serve` and of the CLI's embedded local service (DESIGN §1). */
export const DEFAULT_PORT = 7723;

/** Address the service binds when none is given: loopback only. */
export const DEFAULT_HOST = '127.0.0.1';

/** Longest text one synthesis accepts, in Unicode code points (DESIGN §4.6). */
export const MAX_TEXT_CODE_POINTS = 2000;

/** Most items one batch request holds (DESIGN §4.2); the CLI splits bigger inputs into several jobs. */
export const MAX_BATCH_ITEMS = 100;

/** Dataset CSV limits (DESIGN §4.10): file size, data rows, name length in code points. */
export const DATASET_LIMITS = { bytes: 10 * 1024 * 1024, rows: 10_000, nameCodePoints: 200 } as const;

/** Largest audio file `POST /v1/audio` stores or an audio URL may fetch (DESIGN §4.7). */
export const MAX_UPLOAD_BYTES = 25 * 1024 * 1024;

/** `limit`/`offset` bounds of every list endpoint (DESIGN §4.3). */
export const PAGING = { minLimit: 1, maxLimit: 100, defaultLimit: 20 } as const;

/** Evaluation limits (DESIGN §8): counts per request, utterances in all, name length, speakers. */
export const EVALUATION_LIMITS = {
  texts: 500,
  providers: 10,
  conditions: 8,
  utterances: 20_000,
  name: 200,
  speakerIds: 100,
  perGroup: 20,
} as const;

/** Output sample rates a synthesis may ask for, in Hz. */
export const SAMPLE_RATES = [8000, 16000, 22050, 24000] as const;
export type SampleRateHz = (typeof SAMPLE_RATES)[number];

/** The five statuses of a batch job (DESIGN §4.9); evaluations add `cancelled`. */
export const JOB_STATUSES = ['pending', 'processing', 'completed', 'failed', 'partial'] as const;
export type JobStatusName = (typeof JOB_STATUSES)[number];

/**
 * Corpus limits (DESIGN §10): archive size, expanded size and entries (checked while extracting),
 * utterances, each audio file's bytes and length, a reference's code points, the name's length.
 */
export const CORPUS_LIMITS = {
  archiveBytes: 2 * 1024 ** 3,
  expandedBytes: 10 * 1024 ** 3,
  entries: 100_000,
  utterances: 20_000,
  audioBytes: 25 * 1024 * 1024,
  audioSeconds: 600,
  /** A recorded call of the `stm` layout (DESIGN §16.5) may run this long. */
  callSeconds: 4 * 3600,
  /** ... and its file this large: hours of compressed audio, while one decode stays inside §17.1's memory bound. */
  callBytes: 100 * 1024 * 1024,
  referenceCodePoints: 10_000,
  name: 200,
} as const;

/** The corpus layouts an archive is recognised as (DESIGN §10.1, and `stm`: recorded calls, §16.5). */
export const CORPUS_LAYOUTS = ['audiofolder', 'commonvoice', 'librispeech', 'kaldi', 'stm'] as const;
export type CorpusLayoutName = (typeof CORPUS_LAYOUTS)[number];
/** Pace of streamed audio (DESIGN §13.2): 1.0 = real time; evaluations and `stt stream` take 0.5..4. */
export const STREAM_PACE_MIN = 0.5;
export const STREAM_PACE_MAX = 4;

/**
 * Environment a voxctl service process starts with unless the operator set it (a detached or auto-started
 * service, deploy/'s unit and image). glibc gives each thread that allocates an arena of its own (the TTS
 * workers, libuv's pool, V8's platform threads) and an arena keeps what it once held: capped at two,
 * bench/memory.mjs peaked at 238–257 MB through an evaluation instead of 273–310 MB; at one, 244–250
 * instead of 258–262 MB on Node 26 (Node 20 alike: 224–236 against 216–240), for about 1% of batch
 * synthesis throughput — the engines allocate inside their WebAssembly memories, not with malloc. glibc
 * also raises its mmap threshold each time a large block is freed (up to 32 MB), after which audio buffers of hundreds of
 * kilobytes come from the arenas and stay there: held at its initial 128 KB, every such buffer goes back to
 * the system when freed — a median peak of 247 MB over 13 runs on Node 20 against 260 MB (271–283 against
 * 281–296 MB on Node 26), for 3–4% of batch synthesis throughput (bench/tts.mjs, same run).
 */
export const SERVICE_ENV_DEFAULTS: Readonly<Record<string, string>> = { MALLOC_ARENA_MAX: '1', MALLOC_MMAP_THRESHOLD_: '131072' };
