/**
 * Loopback fakes of the nine hosted STT vendors, as strict as the vendors: each checks what it receives
 * against the vendor's official SDK types (docs/stt-providers.md names them) — path, auth header, body
 * format, required and unknown fields, enums such as AssemblyAI's language codes, OpenAI's per-model
 * rules — and answers 400 in the vendor's own error shape on any violation (also recorded in
 * `violations`), so an adapter that drifts from the vendor fails a test. Modes simulate the failure matrix.
 *
 * The vendor rules are written out here again on purpose rather than imported from the adapters: the
 * fakes are the independent oracle the adapters are checked against.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type Vendor = 'openai' | 'deepgram' | 'assemblyai' | 'google' | 'azure' | 'revai' | 'speechmatics' | 'elevenlabs' | 'gladia';
export const VENDORS: Vendor[] = ['openai', 'deepgram', 'assemblyai', 'google', 'azure', 'revai', 'speechmatics', 'elevenlabs', 'gladia'];
/** Vendors whose flow is submit + poll. */
export const POLLING_VENDORS: Vendor[] = ['assemblyai', 'revai', 'speechmatics', 'gladia'];

/** ok, or a failure: on the flow's first request (401/429/500/malformed/hang/413) or in the polled status (job-error). */
export type FakeMode = 'ok' | '401' | '429' | '500' | 'malformed' | 'hang' | '413' | 'job-error';

export interface RecordedRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingMessage['headers'];
  body: Buffer;
}

export interface FakeVendor {
  vendor: Vendor;
  url: string;
  key: string;
  mode: FakeMode;
  /** Delay before answering the first request of a flow (ms): the vendor's "processing time". */
  delayMs: number;
  /** "Still processing" answers before a job is done. */
  pendingPolls: number;
  /** What the openai and deepgram fakes recognise (default FAKE_TRANSCRIPT); a test changes it to make a vendor worse. */
  transcript: string;
  requests: RecordedRequest[];
  /** Contract violations seen (also answered with 400). */
  violations: string[];
  /** Terms received in the vendor's boosting parameter, per flow (each flow's start adds one entry, empty when none). */
  keyterms: string[][];
  /**
   * A scripted recognition that honours boosting: the fake "hears" `with` when `term` was among the
   * boosted terms of the flow, else `without` (default: FAKE_TRANSCRIPT either way).
   */
  script?: KeytermScript;
  /**
   * What a fake asked for speaker labels hears (DESIGN §16.3): words with a speaker number and times in
   * seconds. Default: the heard transcript's words, all speaker 0, 0.3 s apart.
   */
  speakerWords?: FakeSpeakerWord[];
  /**
   * The Deepgram fake's speaker-labelled words for one audio body, before `speakerWords`: a test that knows
   * each call's truth answers it per call (undefined: the default for that body).
   */
  speakerWordsFor?: (body: Buffer) => FakeSpeakerWord[] | undefined;
  close(): Promise<void>;
}

/** A word a diarizing fake answers: its text, speaker (0, 1, …) and times in seconds. */
export interface FakeSpeakerWord {
  text: string;
  speaker: number;
  start: number;
  end: number;
}

/** What a fake that honours boosting hears (see `FakeVendor.script`). */
export interface KeytermScript {
  term: string;
  without: string;
  with: string;
}

/** The sentence every fake "recognises", with the confidence it implies for its vendor. */
export const FAKE_TRANSCRIPT = 'Please call me back after the meeting tomorrow morning.';

class Violation extends Error {}
const must = (cond: unknown, what: string): void => {
  if (!cond) throw new Violation(what);
};
const isWav = (b: Buffer | Uint8Array) => Buffer.from(b).subarray(0, 4).toString('latin1') === 'RIFF' && Buffer.from(b).subarray(8, 12).toString('latin1') === 'WAVE';
/** Seconds of audio in a 16-bit mono WAV (what the adapters send): data bytes / byte rate. */
const wavSeconds = (b: Buffer) => (b.length - 44) / b.readUInt32LE(28);

/** Only the `allowed` names may appear (vendors refuse unknown parameters). */
function onlyKnown(names: Iterable<string>, allowed: readonly string[], where: string): void {
  for (const n of names) must(allowed.includes(n), `unknown ${where} '${n}'`);
}

/**
 * AssemblyAI's `TranscriptLanguageCode` (AssemblyAI/assemblyai-node-sdk src/types/openapi.generated.ts);
 * Gladia's `PreRecordedV2TranscriptionLanguageCode` is the same list without the four regional codes.
 */
const GLADIA_LANGUAGES = (
  'af am ar as az ba be bg bn bo br bs ca cs cy da de el en es et eu fa fi fo fr gl gu ha haw he hi hr ht hu hy id is it ja ' +
  'jw ka kk km kn ko la lb ln lo lt lv mg mi mk ml mn mr ms mt my ne nl nn no oc pa pl ps pt ro ru sa sd si sk sl sn so sq ' +
  'sr su sv sw ta te tg th tk tl tr tt uk ur uz vi yi yo zh'
).split(' ');
const ASSEMBLYAI_LANGUAGES = [...GLADIA_LANGUAGES, 'en_au', 'en_uk', 'en_us', 'de_ch'];
/** A full locale, as Azure's and Google's short-audio APIs require (`en-US`, `zh-Hant-TW`). */
const FULL_LOCALE = /^[a-z]{2,3}(-[A-Z][a-z]{3})?-([A-Z]{2}|\d{3})$/;

/** Request fields each SDK declares (unknown ones are refused). */
const FIELDS = {
  openai: ['file', 'model', 'language', 'prompt', 'response_format', 'temperature', 'include[]', 'timestamp_granularities[]', 'chunking_strategy', 'known_speaker_names[]', 'known_speaker_references[]', 'stream'],
  deepgram: ['callback', 'callback_method', 'extra', 'sentiment', 'summarize', 'tag', 'topics', 'custom_topic', 'custom_topic_mode', 'intents', 'custom_intent', 'custom_intent_mode', 'detect_entities', 'detect_language', 'diarize', 'diarize_model', 'dictation', 'encoding', 'filler_words', 'keyterm', 'keywords', 'language', 'measurements', 'model', 'multichannel', 'numerals', 'paragraphs', 'profanity_filter', 'punctuate', 'redact', 'replace', 'search', 'smart_format', 'utterances', 'utt_split', 'version', 'mip_opt_out'],
  assemblyai: ['audio_url', 'audio_end_at', 'audio_start_from', 'auto_chapters', 'auto_highlights', 'boost_param', 'content_safety', 'content_safety_confidence', 'custom_spelling', 'custom_topics', 'disfluencies', 'dual_channel', 'entity_detection', 'filter_profanity', 'format_text', 'iab_categories', 'keyterms_prompt', 'keyterms_prompt_options', 'language_code', 'language_confidence_threshold', 'language_detection', 'language_detection_options', 'multichannel', 'prompt', 'punctuate', 'redact_pii', 'redact_pii_audio', 'redact_pii_audio_quality', 'redact_pii_policies', 'redact_pii_sub', 'sentiment_analysis', 'speaker_labels', 'speakers_expected', 'speaker_options', 'speech_model', 'speech_models', 'speech_threshold', 'summarization', 'summary_model', 'summary_type', 'temperature', 'remove_audio_tags', 'topics', 'webhook_auth_header_name', 'webhook_auth_header_value', 'webhook_url', 'word_boost', 'speech_understanding'],
  googleConfig: ['encoding', 'sampleRateHertz', 'audioChannelCount', 'enableSeparateRecognitionPerChannel', 'languageCode', 'alternativeLanguageCodes', 'maxAlternatives', 'profanityFilter', 'adaptation', 'speechContexts', 'enableWordTimeOffsets', 'enableWordConfidence', 'enableAutomaticPunctuation', 'enableSpokenPunctuation', 'enableSpokenEmojis', 'diarizationConfig', 'metadata', 'model', 'useEnhanced'],
  revai: ['start', 'end', 'display_name', 'media_url', 'source_config', 'metadata', 'callback_url', 'notification_config', 'skip_diarization', 'skip_punctuation', 'skip_postprocessing', 'diarization_type', 'speaker_channels_count', 'custom_vocabulary_id', 'custom_vocabularies', 'filter_profanity', 'remove_disfluencies', 'delete_after_seconds', 'language', 'transcriber', 'verbatim', 'rush', 'test_mode', 'segments_to_transcribe', 'speaker_names', 'summarization_config', 'translation_config'],
  speechmaticsJob: ['type', 'fetch_data', 'fetch_text', 'alignment_config', 'transcription_config', 'notification_config', 'tracking', 'output_config', 'translation_config', 'language_identification_config', 'summarization_config', 'sentiment_analysis_config', 'topic_detection_config', 'auto_chapters_config', 'audio_events_config'],
  speechmatics: ['language', 'domain', 'output_locale', 'model', 'additional_vocab', 'punctuation_overrides', 'diarization', 'channel_diarization_labels', 'enable_entities', 'max_delay_mode', 'audio_filtering_config', 'transcript_filtering_config', 'speaker_diarization_config'],
  elevenlabs: ['model_id', 'file', 'language_code', 'tag_audio_events', 'num_speakers', 'timestamps_granularity', 'diarize', 'diarization_threshold', 'additional_formats', 'file_format', 'cloud_storage_url', 'source_url', 'webhook', 'webhook_id', 'temperature', 'seed', 'use_multi_channel', 'multichannel_output_style', 'webhook_metadata', 'entity_detection', 'no_verbatim', 'use_speaker_library', 'detect_speaker_roles', 'entity_redaction', 'entity_redaction_mode', 'keyterms'],
  gladia: ['custom_vocabulary', 'custom_vocabulary_config', 'callback_url', 'callback', 'callback_config', 'subtitles', 'subtitles_config', 'diarization', 'diarization_config', 'translation', 'translation_config', 'summarization', 'summarization_config', 'named_entity_recognition', 'custom_spelling', 'custom_spelling_config', 'sentiment_analysis', 'audio_to_llm', 'audio_to_llm_config', 'pii_redaction', 'pii_redaction_config', 'custom_metadata', 'sentences', 'punctuation_enhanced', 'language_config', 'audio_url'],
} as const;

async function formOf(req: RecordedRequest): Promise<FormData> {
  const ct = String(req.headers['content-type'] ?? '');
  must(ct.startsWith('multipart/form-data'), `expected multipart/form-data, got ${ct}`);
  return new Request('http://fake/', { method: 'POST', headers: { 'content-type': ct }, body: req.body }).formData();
}

async function fileField(form: FormData, name: string): Promise<Buffer> {
  const f = form.get(name);
  must(f && typeof f !== 'string', `multipart part '${name}' must be a file`);
  const b = Buffer.from(await (f as Blob).arrayBuffer());
  must(isWav(b), `part '${name}' must be a WAV file`);
  return b;
}

function jsonOf(req: RecordedRequest): Record<string, unknown> {
  must(String(req.headers['content-type'] ?? '').startsWith('application/json'), 'expected application/json');
  try {
    return JSON.parse(req.body.toString('utf8')) as Record<string, unknown>;
  } catch {
    throw new Violation('body is not JSON');
  }
}

/** What the fake recognises in the current flow: the script's answer for the terms it was sent, else FAKE_TRANSCRIPT. */
function heard(fake: FakeVendor): string {
  if (!fake.script) return fake.transcript;
  const boosted = fake.keyterms.at(-1) ?? [];
  return boosted.includes(fake.script.term) ? fake.script.with : fake.script.without;
}
const wordsOf = (text: string) => text.replace(/\.$/, '').split(' ');
/** The words a diarizing fake answers (see `FakeVendor.speakerWords`). */
const speakerWordsOf = (fake: FakeVendor): FakeSpeakerWord[] =>
  fake.speakerWords ?? wordsOf(heard(fake)).map((text, i) => ({ text, speaker: 0, start: i * 0.3, end: i * 0.3 + 0.25 }));
/** Consecutive words of one speaker joined into segments, as OpenAI's `diarized_json` answers. */
function speakerSegments(words: readonly FakeSpeakerWord[]): FakeSpeakerWord[] {
  const out: FakeSpeakerWord[] = [];
  for (const w of words) {
    const last = out.at(-1);
    if (last && last.speaker === w.speaker) Object.assign(last, { text: `${last.text} ${w.text}`, end: w.end });
    else out.push({ ...w });
  }
  return out;
}

/** Records the terms a flow's request boosted (an empty entry when it boosted none). */
function boosted(fake: FakeVendor, terms: readonly string[]): void {
  fake.keyterms.push([...terms]);
}

const isStringList = (v: unknown): v is string[] => Array.isArray(v) && v.every((t) => typeof t === 'string' && t.trim().length > 0);
const wordCount = (t: string) => t.trim().split(/\s+/).length;

/** Each vendor's 400 body for a request it refuses (the shapes of their API references / SDK error types). */
const BAD_REQUEST: Record<Vendor, (message: string) => unknown> = {
  openai: (message) => ({ error: { message, type: 'invalid_request_error', param: null, code: null } }),
  deepgram: (message) => ({ err_code: 'Bad Request', err_msg: message, request_id: 'dg-req-400' }),
  assemblyai: (message) => ({ error: message }),
  google: (message) => ({ error: { code: 400, message, status: 'INVALID_ARGUMENT' } }),
  azure: (message) => ({ error: { code: 'BadArgument', message } }),
  revai: (message) => ({ type: 'https://www.rev.ai/api/v1/errors/invalid-parameters', title: 'Your request parameters didn\'t pass validation', status: 400, detail: message }),
  speechmatics: (message) => ({ code: 400, error: 'Bad Request', detail: message }),
  elevenlabs: (message) => ({ detail: { status: 'invalid_parameters', message } }),
  gladia: (message) => ({ statusCode: 400, message, validation_errors: [message], request_id: 'G-400' }),
};

/** Vendor-realistic error bodies for the auth failure (the adapters must quote the message). */
const AUTH_ERRORS: Record<Vendor, unknown> = {
  openai: { error: { message: 'Incorrect API key provided: sk-bad.', type: 'invalid_request_error', param: null, code: 'invalid_api_key' } },
  deepgram: { err_code: 'INVALID_AUTH', err_msg: 'Invalid credentials.', request_id: 'dg-req-1' },
  assemblyai: { error: 'Authentication error, API token missing/invalid' },
  google: { error: { code: 401, message: 'API key not valid. Please pass a valid API key.', status: 'UNAUTHENTICATED' } },
  azure: { error: { code: '401', message: 'Access denied due to invalid subscription key or wrong API endpoint.' } },
  revai: { title: 'Authorization has been denied for this request', status: 401 },
  speechmatics: { code: 401, error: 'Permission Denied' },
  elevenlabs: { detail: { status: 'invalid_api_key', message: 'Invalid API key' } },
  gladia: { statusCode: 401, message: 'Invalid or missing x-gladia-key header', request_id: 'G-1' },
};

type Reply = { status: number; body: unknown } | 'hang';
type Handler = (req: RecordedRequest, fake: FakeVendor, state: Map<string, number>) => Promise<Reply>;

const ok = (body: unknown, status = 200): Reply => ({ status, body });

/** The request that starts a flow (where failure modes and the processing delay apply). */
const FLOW_START: Record<Vendor, string[]> = {
  openai: ['/v1/audio/transcriptions', '/inference'],
  deepgram: ['/v1/listen'],
  assemblyai: ['/v2/upload'],
  google: ['/v1/speech:recognize'],
  azure: ['/speech/recognition/conversation/cognitiveservices/v1', '/speechtotext/transcriptions:transcribe'],
  revai: ['/speechtotext/v1/jobs'],
  speechmatics: ['/v2/jobs'],
  elevenlabs: ['/v1/speech-to-text'],
  gladia: ['/v2/upload'],
};

/** Counts polls of job `id`: pending until `pendingPolls` answers were given. */
function pollDone(state: Map<string, number>, id: string, fake: FakeVendor): boolean {
  const n = (state.get(id) ?? 0) + 1;
  state.set(id, n);
  return n > fake.pendingPolls;
}

/**
 * Azure fast transcription (learn.microsoft.com "Use the fast transcription API", api-version 2024-11-15):
 * multipart `audio` + `definition` JSON; the only Azure REST API with a phrase list (`phraseList.phrases`).
 */
async function azureFast(req: RecordedRequest, fake: FakeVendor): Promise<Reply> {
  must(req.headers['ocp-apim-subscription-key'] === fake.key, 'Ocp-Apim-Subscription-Key must be the key');
  must(req.query.get('api-version') === '2024-11-15', 'api-version=2024-11-15 expected');
  const form = await formOf(req);
  onlyKnown(form.keys(), ['audio', 'definition'], 'part');
  await fileField(form, 'audio');
  let def: Record<string, unknown>;
  try {
    def = JSON.parse(String(form.get('definition'))) as Record<string, unknown>;
  } catch {
    throw new Violation('definition is not JSON');
  }
  onlyKnown(Object.keys(def), ['locales', 'diarization', 'channels', 'profanityFilterMode', 'phraseList'], 'definition property');
  if (def.locales !== undefined) must(Array.isArray(def.locales) && def.locales.every((l) => FULL_LOCALE.test(String(l))), 'definition.locales must be locales such as en-US');
  const phrases: string[] = [];
  if (def.phraseList !== undefined) {
    const pl = def.phraseList as Record<string, unknown>;
    onlyKnown(Object.keys(pl ?? {}), ['phrases', 'biasingWeight'], 'phraseList property');
    must(isStringList(pl.phrases), 'phraseList.phrases must be a list of strings');
    if (pl.biasingWeight !== undefined) must(typeof pl.biasingWeight === 'number' && pl.biasingWeight >= 0 && pl.biasingWeight <= 2, 'phraseList.biasingWeight must be 0.0..2.0');
    phrases.push(...(pl.phrases as string[]));
  }
  // TranscriptionDiarizationOptions {enabled?: boolean, maxSpeakers?: number} ("greater than 1 and less than 36").
  let diarize = false;
  if (def.diarization !== undefined) {
    const d = def.diarization as Record<string, unknown>;
    must(d && typeof d === 'object' && !Array.isArray(d), 'definition.diarization must be an object');
    onlyKnown(Object.keys(d), ['enabled', 'maxSpeakers'], 'diarization property');
    if (d.enabled !== undefined) must(typeof d.enabled === 'boolean', 'diarization.enabled must be a boolean');
    if (d.maxSpeakers !== undefined) must(Number.isInteger(d.maxSpeakers) && (d.maxSpeakers as number) > 1 && (d.maxSpeakers as number) < 36, 'diarization.maxSpeakers must be greater than 1 and less than 36');
    diarize = d.enabled === true || d.maxSpeakers !== undefined;
  }
  boosted(fake, phrases);
  if (diarize) {
    // Each phrase carries `speaker` (from 1) and its words, times in milliseconds.
    const ms = (s: number) => Math.round(s * 1000);
    const segs = speakerSegments(speakerWordsOf(fake));
    const sw = speakerWordsOf(fake);
    let i = 0;
    const phrasesOut = segs.map((g) => {
      const words = sw.slice(i, (i += g.text.split(' ').length));
      return { speaker: g.speaker + 1, offsetMilliseconds: ms(g.start), durationMilliseconds: ms(g.end) - ms(g.start), text: g.text, words: words.map((w) => ({ text: w.text, offsetMilliseconds: ms(w.start), durationMilliseconds: ms(w.end) - ms(w.start) })), locale: 'en-US', confidence: 0.9 };
    });
    return ok({ durationMilliseconds: 3260, combinedPhrases: [{ text: segs.map((g) => g.text).join(' ') }], phrases: phrasesOut });
  }
  const text = heard(fake);
  return ok({
    durationMilliseconds: 3260,
    combinedPhrases: [{ text }],
    phrases: [{ offsetMilliseconds: 180, durationMilliseconds: 3100, text, words: [], locale: 'en-US', confidence: 0.91 }],
  });
}

const HANDLERS: Record<Vendor, Handler> = {
  async openai(req, fake) {
    must(req.method === 'POST' && (req.path === '/v1/audio/transcriptions' || req.path === '/inference'), `unexpected ${req.method} ${req.path}`);
    // A self-hosted server (empty key) takes no Authorization header at all.
    must(fake.key ? req.headers.authorization === `Bearer ${fake.key}` : req.headers.authorization === undefined, 'Authorization must be Bearer KEY (none when self-hosted)');
    const form = await formOf(req);
    onlyKnown(form.keys(), FIELDS.openai, 'parameter');
    const audio = await fileField(form, 'file');
    const model = form.get('model');
    must(typeof model === 'string' && model.length > 0, 'model is required');
    const m = String(model);
    const format = String(form.get('response_format') ?? 'json');
    must(['json', 'text', 'srt', 'verbose_json', 'vtt', 'diarized_json'].includes(format), `response_format '${format}' is not one of json, text, srt, verbose_json, vtt, diarized_json`);
    // Per-model rules of TranscriptionCreateParamsBase (openai-node src/resources/audio/transcriptions.ts).
    const logprobModel = /^gpt-4o(-mini)?-transcribe(-\d{4}-\d{2}-\d{2})?$/.test(m);
    const diarize = /^gpt-4o-transcribe-diarize/.test(m);
    const include = form.getAll('include[]');
    if (logprobModel) must(format === 'json', `response_format '${format}' is not compatible with model '${m}': the only supported format is json`);
    if (diarize) {
      must(['json', 'text', 'diarized_json'].includes(format), `response_format '${format}' is not compatible with model '${m}'`);
      for (const field of ['include[]', 'prompt', 'timestamp_granularities[]']) must(!form.has(field), `${field} is not supported with model '${m}'`);
      must(wavSeconds(audio) <= 30 || form.has('chunking_strategy'), `chunking_strategy is required for model '${m}' when the audio is longer than 30 seconds`);
    }
    if (!m.startsWith('gpt-')) must(format !== 'diarized_json', `response_format 'diarized_json' is not compatible with model '${m}'`);
    for (const v of include) must(v === 'logprobs', `include[] '${String(v)}' is not one of logprobs`);
    if (include.length) must(logprobModel && format === 'json', `logprobs are only supported with response_format json and the models gpt-4o-transcribe and gpt-4o-mini-transcribe, not '${m}'`);
    const chunking = form.get('chunking_strategy');
    if (chunking !== null) must(chunking === 'auto' || /"type":\s*"server_vad"/.test(String(chunking)), "chunking_strategy must be 'auto' or a server_vad object");
    const temperature = form.get('temperature');
    if (temperature !== null) must(Number(temperature) >= 0 && Number(temperature) <= 1, 'temperature must be between 0 and 1');
    const language = form.get('language');
    if (language !== null) must(/^[a-z]{2}$/.test(String(language)), `language '${String(language)}' is not ISO-639-1`);
    // `prompt` is one text field (TranscriptionCreateParamsBase.prompt: string); keyterms arrive as a comma-separated list.
    must(form.getAll('prompt').length <= 1, 'prompt must be given once');
    const prompt = form.get('prompt');
    if (prompt !== null) must(typeof prompt === 'string' && prompt.trim(), 'prompt must be text');
    boosted(fake, prompt === null ? [] : String(prompt).split(',').map((t) => t.trim()));
    const text = heard(fake);
    const words = wordsOf(text);
    if (format === 'diarized_json') {
      // TranscriptionDiarized (openai-node): text, segments of {type, id, speaker, start, end, text}; speakers 'A', 'B'…
      const segs = speakerSegments(speakerWordsOf(fake));
      return ok({
        task: 'transcribe',
        duration: 3.26,
        text: segs.map((g) => g.text).join(' '),
        segments: segs.map((g, i) => ({ type: 'transcript.text.segment', id: `seg_${i}`, speaker: String.fromCharCode(65 + g.speaker), start: g.start, end: g.end, text: g.text })),
        usage: { type: 'duration', seconds: 4 },
      });
    }
    if (format === 'json') {
      if (include.includes('logprobs')) {
        return ok({ text, logprobs: words.map((w) => ({ token: w, logprob: -0.1, bytes: [...Buffer.from(w)] })) });
      }
      return ok({ text });
    }
    return ok({
      task: 'transcribe',
      language: 'english',
      duration: 3.26,
      text,
      segments: [
        { id: 0, seek: 0, start: 0, end: 1.6, text: ' Please call me back', tokens: [1, 2], temperature: 0, avg_logprob: -0.2, compression_ratio: 0.9, no_speech_prob: 0.01 },
        { id: 1, seek: 0, start: 1.6, end: 3.2, text: ' after the meeting tomorrow morning.', tokens: [3], temperature: 0, avg_logprob: -0.4, compression_ratio: 0.9, no_speech_prob: 0.01 },
      ],
    });
  },
  async deepgram(req, fake) {
    must(req.method === 'POST' && req.path === '/v1/listen', `unexpected ${req.method} ${req.path}`);
    must(req.headers.authorization === `Token ${fake.key}`, 'Authorization must be Token KEY');
    onlyKnown(req.query.keys(), FIELDS.deepgram, 'query parameter');
    must(req.query.get('model'), 'model query parameter is required');
    for (const flag of ['detect_language', 'smart_format', 'punctuate', 'diarize']) {
      const v = req.query.get(flag);
      must(v === null || v === 'true' || v === 'false', `${flag} must be true or false`);
    }
    must(String(req.headers['content-type']).startsWith('audio/wav'), 'Content-Type must be audio/wav');
    must(isWav(req.body), 'body must be the WAV');
    // ListenV1RequestUrl: `keyterm` "Only compatible with Nova-3", repeated once per term; older models take `keywords`
    // (single words, optional `:intensifier`), which Nova-3 does not.
    const model = String(req.query.get('model'));
    const keyterm = req.query.getAll('keyterm');
    const keywords = req.query.getAll('keywords');
    if (keyterm.length) must(/^nova-3/.test(model), `keyterm is only compatible with Nova-3, not '${model}'`);
    if (keywords.length) must(!/^nova-3/.test(model), `keywords are not supported by '${model}': use keyterm`);
    must(keyterm.length <= 100 && keywords.length <= 100, 'at most 100 keyterms or keywords');
    for (const t of keyterm) must(t.trim() && !/[,;\n]/.test(t), `keyterm '${t}': repeat the parameter for each term instead of separating terms`);
    for (const w of keywords) must(/^[^\s:]+(:-?\d+(\.\d+)?)?$/.test(w), `keywords '${w}' must be one word with an optional :intensifier`);
    boosted(fake, [...keyterm, ...keywords.map((w) => w.replace(/:[-\d.]+$/, ''))]);
    const text = heard(fake);
    const words = wordsOf(text);
    // Without `language` Deepgram assumes English; only `detect_language=true` makes it identify the language.
    const detected = req.query.get('detect_language') === 'true' ? { detected_language: 'en', language_confidence: 0.99 } : {};
    if (req.query.get('diarize') === 'true') {
      // With diarize=true every word carries `speaker` (an integer) and `speaker_confidence`.
      const sw = fake.speakerWordsFor?.(req.body) ?? speakerWordsOf(fake);
      const transcript = sw.map((w) => w.text).join(' ');
      const dw = sw.map((w) => ({ word: w.text.toLowerCase(), start: w.start, end: w.end, confidence: 0.98, punctuated_word: w.text, speaker: w.speaker, speaker_confidence: 0.9 }));
      return ok({ metadata: { request_id: 'dg-1', duration: 3.26, channels: 1, models: ['nova-3'] }, results: { channels: [{ ...detected, alternatives: [{ transcript, confidence: 0.98, words: dw }] }] } });
    }
    return ok({
      metadata: { request_id: 'dg-1', duration: 3.26, channels: 1, models: ['nova-3'] },
      results: {
        channels: [
          {
            ...detected,
            alternatives: [
              { transcript: text, confidence: 0.98, words: words.map((w, i) => ({ word: w.toLowerCase(), start: i * 0.3, end: i * 0.3 + 0.25, confidence: 0.98, punctuated_word: w })) },
            ],
          },
        ],
      },
    });
  },
  async assemblyai(req, fake, state) {
    must(req.headers.authorization === fake.key, 'authorization must be the bare key');
    if (req.method === 'POST' && req.path === '/v2/upload') {
      must(!String(req.headers['content-type'] ?? '').startsWith('multipart/'), 'upload body must be the raw bytes, not multipart');
      must(isWav(req.body), 'upload body must be the raw WAV bytes');
      return ok({ upload_url: `${fake.url}/uploads/aai-file-1` });
    }
    if (req.method === 'POST' && req.path === '/v2/transcript') {
      const body = jsonOf(req);
      must(body.audio_url === `${fake.url}/uploads/aai-file-1`, 'audio_url must be the upload_url');
      onlyKnown(Object.keys(body), FIELDS.assemblyai, 'parameter');
      must(Array.isArray(body.speech_models) || typeof body.speech_model === 'string', 'speech_models is required');
      if (body.speech_models !== undefined) must(Array.isArray(body.speech_models) && body.speech_models.every((v) => typeof v === 'string' && v), 'speech_models must be a list of model names');
      if (body.speech_model !== undefined) must(['best', 'nano', 'slam-1', 'universal'].includes(String(body.speech_model)), `speech_model '${String(body.speech_model)}' is not one of best, nano, slam-1, universal`);
      if (body.language_code !== undefined && body.language_code !== null) {
        must(ASSEMBLYAI_LANGUAGES.includes(String(body.language_code)), `language_code '${String(body.language_code)}' is not a supported language code`);
      }
      if (body.language_detection !== undefined) must(typeof body.language_detection === 'boolean', 'language_detection must be a boolean');
      // TranscriptOptionalParams.keyterms_prompt: string[] (docs: <= 1000 terms of <= 6 words), "Can't be used together with `prompt`".
      if (body.keyterms_prompt !== undefined) {
        must(isStringList(body.keyterms_prompt), 'keyterms_prompt must be a list of strings');
        const terms = body.keyterms_prompt as string[];
        must(terms.length <= 1000, 'keyterms_prompt takes at most 1000 terms');
        for (const t of terms) must(wordCount(t) <= 6, `keyterms_prompt '${t}' has more than 6 words`);
        must(body.prompt === undefined, "keyterms_prompt can't be used together with prompt");
      }
      if (body.speaker_labels !== undefined) must(typeof body.speaker_labels === 'boolean', 'speaker_labels must be a boolean');
      state.set('speaker_labels', body.speaker_labels === true ? 1 : 0);
      boosted(fake, (body.keyterms_prompt as string[] | undefined) ?? []);
      return ok({ id: 'aai-t1', status: 'queued', audio_url: body.audio_url, text: null, confidence: null });
    }
    if (req.method === 'GET' && req.path === '/v2/transcript/aai-t1') {
      if (!pollDone(state, 'aai-t1', fake)) return ok({ id: 'aai-t1', status: 'processing', text: null, confidence: null });
      if (fake.mode === 'job-error') return ok({ id: 'aai-t1', status: 'error', error: 'Transcoding failed. File does not appear to contain audio.' });
      if (state.get('speaker_labels') === 1) {
        // speaker_labels: each word's `speaker` is a letter; times are milliseconds.
        const sw = speakerWordsOf(fake);
        const words = sw.map((w) => ({ text: w.text, start: Math.round(w.start * 1000), end: Math.round(w.end * 1000), confidence: 0.93, speaker: String.fromCharCode(65 + w.speaker) }));
        return ok({ id: 'aai-t1', status: 'completed', text: sw.map((w) => w.text).join(' '), confidence: 0.93, words, utterances: [], audio_duration: 3 });
      }
      return ok({ id: 'aai-t1', status: 'completed', text: heard(fake), confidence: 0.93, words: [], audio_duration: 3 });
    }
    throw new Violation(`unexpected ${req.method} ${req.path}`);
  },
  async google(req, fake) {
    must(req.method === 'POST' && req.path === '/v1/speech:recognize', `unexpected ${req.method} ${req.path}`);
    must(req.query.get('key') === fake.key, 'key query parameter must be the API key');
    const body = jsonOf(req) as { config?: Record<string, unknown>; audio?: { content?: unknown } };
    onlyKnown(Object.keys(body), ['config', 'audio'], 'field');
    onlyKnown(Object.keys(body.config ?? {}), FIELDS.googleConfig, 'config field');
    must(body.config?.encoding === 'LINEAR16', 'config.encoding must be LINEAR16');
    const rate = body.config?.sampleRateHertz;
    must(typeof rate === 'number' && rate >= 8000 && rate <= 48000, 'config.sampleRateHertz must be 8000..48000');
    must(typeof body.config?.languageCode === 'string', 'config.languageCode is required');
    must(FULL_LOCALE.test(String(body.config?.languageCode)), `Invalid recognition 'config': bad language code "${String(body.config?.languageCode)}"`);
    must(typeof body.audio?.content === 'string' && (body.audio.content as string).length > 100, 'audio.content must be base64 audio');
    // RecognitionConfig.speechContexts: SpeechContext[] = {phrases: string[], boost?: number}; quotas: 5000 phrases, 100 characters each.
    const contexts = body.config?.speechContexts;
    const phrases: string[] = [];
    if (contexts !== undefined) {
      must(Array.isArray(contexts), 'config.speechContexts must be a list');
      for (const c of contexts as Record<string, unknown>[]) {
        onlyKnown(Object.keys(c ?? {}), ['phrases', 'boost'], 'speechContexts field');
        must(isStringList(c.phrases), 'speechContexts[].phrases must be a list of strings');
        if (c.boost !== undefined) must(typeof c.boost === 'number', 'speechContexts[].boost must be a number');
        phrases.push(...(c.phrases as string[]));
      }
      must(phrases.length <= 5000 && phrases.every((p) => p.length <= 100), 'speech contexts take at most 5000 phrases of at most 100 characters');
    }
    // SpeakerDiarizationConfig {enableSpeakerDiarization, minSpeakerCount (default 2), maxSpeakerCount (default 6)}; speakerTag is output only.
    const dc = body.config?.diarizationConfig as Record<string, unknown> | undefined;
    if (dc !== undefined) {
      must(dc && typeof dc === 'object' && !Array.isArray(dc), 'config.diarizationConfig must be an object');
      onlyKnown(Object.keys(dc), ['enableSpeakerDiarization', 'minSpeakerCount', 'maxSpeakerCount'], 'diarizationConfig field');
      if (dc.enableSpeakerDiarization !== undefined) must(typeof dc.enableSpeakerDiarization === 'boolean', 'diarizationConfig.enableSpeakerDiarization must be a boolean');
      for (const f of ['minSpeakerCount', 'maxSpeakerCount']) if (dc[f] !== undefined) must(Number.isInteger(dc[f]) && (dc[f] as number) >= 1, `diarizationConfig.${f} must be a positive integer`);
      must(((dc.minSpeakerCount as number | undefined) ?? 2) <= ((dc.maxSpeakerCount as number | undefined) ?? 6), 'diarizationConfig.minSpeakerCount must not exceed maxSpeakerCount');
    }
    if (body.config?.enableWordTimeOffsets !== undefined) must(typeof body.config.enableWordTimeOffsets === 'boolean', 'config.enableWordTimeOffsets must be a boolean');
    boosted(fake, phrases);
    if (dc?.enableSpeakerDiarization === true) {
      // One result per stretch of speech; the top alternative of the last one keeps its own transcript but holds
      // every word from the beginning with its speaker (googleapis/google-cloud-java#3903); times only with
      // enableWordTimeOffsets, as "1.500s" durations.
      const sw = speakerWordsOf(fake);
      const times = body.config?.enableWordTimeOffsets === true;
      const dur = (s: number) => `${s.toFixed(3)}s`;
      const words = sw.map((w) => ({ word: w.text, ...(times ? { startTime: dur(w.start), endTime: dur(w.end) } : {}), speakerTag: w.speaker + 1, speakerLabel: String(w.speaker + 1) }));
      const segs = speakerSegments(sw);
      const results = segs.map((g, i) => ({ alternatives: [{ transcript: `${i ? ' ' : ''}${g.text}`, confidence: 0.9, ...(i === segs.length - 1 ? { words } : {}) }], resultEndTime: dur(g.end), languageCode: 'en-us' }));
      return ok({ results, totalBilledTime: '4s', requestId: '125' });
    }
    const text = heard(fake);
    if (text !== FAKE_TRANSCRIPT) return ok({ results: [{ alternatives: [{ transcript: text, confidence: 0.85 }], resultEndTime: '3.200s', languageCode: 'en-us' }], totalBilledTime: '4s', requestId: '124' });
    return ok({
      results: [
        { alternatives: [{ transcript: 'Please call me back', confidence: 0.9 }], resultEndTime: '1.600s', languageCode: 'en-us' },
        { alternatives: [{ transcript: ' after the meeting tomorrow morning.', confidence: 0.8 }], resultEndTime: '3.200s', languageCode: 'en-us' },
      ],
      totalBilledTime: '4s',
      requestId: '123',
    });
  },
  async azure(req, fake) {
    if (req.method === 'POST' && req.path === '/speechtotext/transcriptions:transcribe') return azureFast(req, fake);
    must(req.method === 'POST' && req.path === '/speech/recognition/conversation/cognitiveservices/v1', `unexpected ${req.method} ${req.path}`);
    must(req.headers['ocp-apim-subscription-key'] === fake.key, 'Ocp-Apim-Subscription-Key must be the key');
    must(req.query.get('language'), 'language query parameter is required');
    must(FULL_LOCALE.test(String(req.query.get('language'))), `language '${String(req.query.get('language'))}' is not a supported locale`);
    must(req.query.get('format') === 'detailed', 'format=detailed expected');
    must(/^audio\/wav; ?codecs=audio\/pcm; ?samplerate=16000$/.test(String(req.headers['content-type'])), 'Content-Type must be audio/wav; codecs=audio/pcm; samplerate=16000');
    must(isWav(req.body) && req.body.readUInt32LE(24) === 16000, 'body must be a 16 kHz WAV');
    if (fake.mode === 'job-error') return ok({ RecognitionStatus: 'Error', Offset: 0, Duration: 0 });
    boosted(fake, []);
    const text = heard(fake);
    return ok({
      RecognitionStatus: 'Success',
      Offset: 1800000,
      Duration: 31000000,
      NBest: [{ Confidence: 0.95, Lexical: text.toLowerCase(), ITN: '', MaskedITN: '', Display: text }],
    });
  },
  async revai(req, fake, state) {
    must(req.headers.authorization === `Bearer ${fake.key}`, 'Authorization must be Bearer KEY');
    if (req.method === 'POST' && req.path === '/speechtotext/v1/jobs') {
      const form = await formOf(req);
      await fileField(form, 'media');
      onlyKnown(form.keys(), ['media', 'options'], 'part');
      const options = form.get('options');
      must(typeof options === 'string', "'options' part must be JSON text");
      let parsed: Record<string, unknown>;
      try {
        parsed = JSON.parse(options as string) as Record<string, unknown>;
      } catch {
        throw new Violation("'options' part is not JSON");
      }
      onlyKnown(Object.keys(parsed), FIELDS.revai, 'option');
      if (parsed.transcriber !== undefined) must(['machine', 'low_cost', 'fusion', 'human'].includes(String(parsed.transcriber)), `transcriber '${String(parsed.transcriber)}' is not one of machine, low_cost, fusion, human`);
      if (parsed.language !== undefined) must(/^[a-z]{2,3}$/.test(String(parsed.language)), `language '${String(parsed.language)}' is not a supported language`);
      // RevAiJobOptions.custom_vocabularies: CustomVocabulary[] = {phrases: string[]}; docs: <= 6000 phrases, <= 12 words
      // of <= 34 characters, at least one letter, no digits, Basic Latin only.
      const vocab: string[] = [];
      if (parsed.custom_vocabularies !== undefined) {
        must(Array.isArray(parsed.custom_vocabularies), 'custom_vocabularies must be a list');
        for (const v of parsed.custom_vocabularies as Record<string, unknown>[]) {
          onlyKnown(Object.keys(v ?? {}), ['phrases'], 'custom vocabulary field');
          must(isStringList(v.phrases), 'custom_vocabularies[].phrases must be a list of strings');
          vocab.push(...(v.phrases as string[]));
        }
        must(vocab.length <= 6000, 'custom vocabularies take at most 6000 phrases');
        for (const p of vocab) {
          must(/[a-z]/i.test(p) && /^[\x20-\x7e]+$/.test(p) && !/\d/.test(p), `phrase '${p}' must hold a letter and no digits or non-Basic-Latin characters`);
          must(wordCount(p) <= 12 && p.trim().split(/\s+/).every((w) => w.length <= 34), `phrase '${p}' must have at most 12 words of at most 34 characters`);
        }
      }
      // RevAiJobOptions.skip_diarization?: boolean (Rev.ai diarizes unless it is true); diarization_type standard | premium.
      if (parsed.skip_diarization !== undefined) must(typeof parsed.skip_diarization === 'boolean', 'skip_diarization must be a boolean');
      if (parsed.diarization_type !== undefined) must(['standard', 'premium'].includes(String(parsed.diarization_type)), `diarization_type '${String(parsed.diarization_type)}' is not one of standard, premium`);
      state.set('skip_diarization', parsed.skip_diarization === true ? 1 : 0);
      boosted(fake, vocab);
      return ok({ id: 'rev-j1', created_on: '2024-01-01T00:00:00Z', name: 'audio.wav', status: 'in_progress', type: 'async' });
    }
    if (req.method === 'GET' && req.path === '/speechtotext/v1/jobs/rev-j1') {
      if (!pollDone(state, 'rev-j1', fake)) return ok({ id: 'rev-j1', status: 'in_progress', type: 'async' });
      if (fake.mode === 'job-error') return ok({ id: 'rev-j1', status: 'failed', failure: 'download_failure', failure_detail: 'Failed to process the media file' });
      return ok({ id: 'rev-j1', status: 'transcribed', duration_seconds: 3.26, type: 'async' });
    }
    if (req.method === 'GET' && req.path === '/speechtotext/v1/jobs/rev-j1/transcript') {
      must(req.headers.accept === 'application/vnd.rev.transcript.v1.0+json', 'Accept must be application/vnd.rev.transcript.v1.0+json');
      const words = wordsOf(heard(fake));
      if (state.get('skip_diarization') === 0 && fake.speakerWords) {
        // Diarized (the default): one monologue per speaker turn, `speaker` an integer, text elements with ts/end_ts.
        const monologues: { speaker: number; elements: Record<string, unknown>[] }[] = [];
        for (const w of fake.speakerWords) {
          let m = monologues.at(-1);
          if (!m || m.speaker !== w.speaker) monologues.push((m = { speaker: w.speaker, elements: [] }));
          if (m.elements.length) m.elements.push({ type: 'punct', value: ' ' });
          m.elements.push({ type: 'text', value: w.text, ts: w.start, end_ts: w.end, confidence: 0.9 });
        }
        return ok({ monologues });
      }
      const elements = words.flatMap((w, i) => [
        { type: 'text', value: w, ts: i * 0.3, end_ts: i * 0.3 + 0.25, confidence: i % 2 ? 0.8 : 1.0 },
        { type: 'punct', value: i === words.length - 1 ? '.' : ' ' },
      ]);
      return ok({ monologues: [{ speaker: 0, elements }] });
    }
    throw new Violation(`unexpected ${req.method} ${req.path}`);
  },
  async speechmatics(req, fake, state) {
    must(req.headers.authorization === `Bearer ${fake.key}`, 'Authorization must be Bearer KEY');
    if (req.method === 'POST' && req.path === '/v2/jobs') {
      const form = await formOf(req);
      await fileField(form, 'data_file');
      onlyKnown(form.keys(), ['data_file', 'config'], 'part');
      let config: { type?: string; transcription_config?: Record<string, unknown> };
      try {
        config = JSON.parse(String(form.get('config'))) as typeof config;
      } catch {
        throw new Violation('config is not JSON');
      }
      onlyKnown(Object.keys(config), FIELDS.speechmaticsJob, 'config field');
      must(config.type === 'transcription' && typeof config.transcription_config?.language === 'string', 'config must be a transcription config with a language');
      const tc = config.transcription_config ?? {};
      // `operating_point` is deprecated in favour of `model` (packages/batch-client/models/transcription-config.ts).
      must(!('operating_point' in tc), 'transcription_config.operating_point is deprecated: use transcription_config.model');
      onlyKnown(Object.keys(tc), FIELDS.speechmatics, 'transcription_config field');
      if (tc.model !== undefined) must(['standard', 'enhanced', 'melia-1'].includes(String(tc.model)), `transcription_config.model '${String(tc.model)}' is not one of standard, enhanced, melia-1`);
      // TranscriptionConfigAdditionalVocabInner: {content: string, sounds_like?: string[]}.
      const vocab: string[] = [];
      if (tc.additional_vocab !== undefined) {
        must(Array.isArray(tc.additional_vocab), 'additional_vocab must be a list');
        for (const v of tc.additional_vocab as Record<string, unknown>[]) {
          must(v && typeof v === 'object', 'additional_vocab entries must be objects with content');
          onlyKnown(Object.keys(v), ['content', 'sounds_like'], 'additional_vocab field');
          must(typeof v.content === 'string' && v.content.trim(), 'additional_vocab[].content is required');
          if (v.sounds_like !== undefined) must(isStringList(v.sounds_like), 'additional_vocab[].sounds_like must be a list of strings');
          vocab.push(v.content as string);
        }
      }
      // TranscriptionConfig.diarization: none | speaker | channel (batch); speaker_diarization_config only with `speaker`.
      if (tc.diarization !== undefined) must(['none', 'speaker', 'channel'].includes(String(tc.diarization)), `transcription_config.diarization '${String(tc.diarization)}' is not one of none, speaker, channel`);
      if (tc.speaker_diarization_config !== undefined) {
        must(tc.diarization === 'speaker', "speaker_diarization_config needs diarization 'speaker'");
        onlyKnown(Object.keys(tc.speaker_diarization_config as object), ['speaker_sensitivity', 'prefer_current_speaker', 'max_speakers', 'get_speakers', 'speakers'], 'speaker_diarization_config field');
      }
      state.set('diarization', tc.diarization === 'speaker' ? 1 : 0);
      boosted(fake, vocab);
      return ok({ id: 'sm-1' }, 201);
    }
    if (req.method === 'GET' && req.path === '/v2/jobs/sm-1') {
      const job = { id: 'sm-1', created_at: '2024-01-01T00:00:00Z', data_name: 'audio.wav', duration: 3 };
      if (!pollDone(state, 'sm-1', fake)) return ok({ job: { ...job, status: 'running' } });
      if (fake.mode === 'job-error') return ok({ job: { ...job, status: 'rejected', errors: [{ timestamp: '2024-01-01T00:00:01Z', message: 'unsupported file format' }] } });
      return ok({ job: { ...job, status: 'done' } });
    }
    if (req.method === 'GET' && req.path === '/v2/jobs/sm-1/transcript') {
      must(req.query.get('format') === 'json-v2', 'format=json-v2 expected');
      if (state.get('diarization') === 1) {
        // With diarization 'speaker' each word's alternative carries `speaker`: S1, S2… in order of appearance.
        const results = speakerWordsOf(fake).map((w) => ({ type: 'word', start_time: w.start, end_time: w.end, alternatives: [{ content: w.text, confidence: 0.95, language: 'en', speaker: `S${w.speaker + 1}` }] }));
        return ok({ format: '2.9', job: { id: 'sm-1' }, metadata: { transcription_config: { language: 'en', diarization: 'speaker' } }, results });
      }
      const words = wordsOf(heard(fake));
      const results = words.map((w, i) => ({ type: 'word', start_time: i * 0.3, end_time: i * 0.3 + 0.25, alternatives: [{ content: w, confidence: i % 2 ? 0.9 : 1.0, language: 'en' }] }));
      results.push({ type: 'punctuation', start_time: 3, end_time: 3, attaches_to: 'previous', is_eos: true, alternatives: [{ content: '.', confidence: 1, language: 'en' }] } as never);
      return ok({ format: '2.9', job: { id: 'sm-1' }, metadata: { transcription_config: { language: 'en' } }, results });
    }
    throw new Violation(`unexpected ${req.method} ${req.path}`);
  },
  async elevenlabs(req, fake) {
    must(req.method === 'POST' && req.path === '/v1/speech-to-text', `unexpected ${req.method} ${req.path}`);
    must(req.headers['xi-api-key'] === fake.key, 'xi-api-key must be the key');
    const form = await formOf(req);
    onlyKnown(form.keys(), FIELDS.elevenlabs, 'field');
    const audio = await fileField(form, 'file');
    must(typeof form.get('model_id') === 'string', 'model_id is required');
    must(['scribe_v1', 'scribe_v2'].includes(String(form.get('model_id'))), `model_id '${String(form.get('model_id'))}' is not one of scribe_v1, scribe_v2`);
    const language = form.get('language_code');
    if (language !== null) must(/^[a-z]{2,3}$/.test(String(language)), `language_code '${String(language)}' is not ISO-639-1 or ISO-639-3`);
    must(wavSeconds(audio) >= 0.1, 'audio is too short: the minimum is 100 ms');
    // BodySpeechToTextV1SpeechToTextPost.keyterms: repeated field; <= 1000 terms, each < 50 characters, <= 5 words, none of < > { } [ ] \.
    const keyterms = form.getAll('keyterms').map(String);
    must(keyterms.length <= 1000, 'The number of keyterms cannot exceed 1000');
    for (const t of keyterms) {
      must(t.trim() && t.length < 50, `keyterm '${t}' must be less than 50 characters`);
      must(wordCount(t) <= 5, `keyterm '${t}' can contain at most 5 words`);
      must(!/[<>{}[\]\\]/.test(t), `keyterm '${t}' contains an unsupported character`);
    }
    // BodySpeechToTextV1SpeechToTextPost: diarize?: boolean; num_speakers?: 1..32; diarization_threshold only with
    // diarize=true and no num_speakers.
    const diarize = form.get('diarize');
    if (diarize !== null) must(diarize === 'true' || diarize === 'false', `diarize '${String(diarize)}' must be true or false`);
    const speakers = form.get('num_speakers');
    if (speakers !== null) must(/^\d+$/.test(String(speakers)) && Number(speakers) >= 1 && Number(speakers) <= 32, 'num_speakers must be 1..32');
    if (form.has('diarization_threshold')) must(diarize === 'true' && speakers === null, 'diarization_threshold can only be set when diarize=true and num_speakers is not set');
    boosted(fake, keyterms);
    if (diarize === 'true') {
      const sw = speakerWordsOf(fake);
      return ok({
        language_code: 'eng',
        language_probability: 0.99,
        text: sw.map((w) => w.text).join(' '),
        words: sw.flatMap((w, i) => [
          ...(i ? [{ text: ' ', type: 'spacing', start: sw[i - 1]!.end, end: w.start, speaker_id: `speaker_${w.speaker}`, logprob: -3 }] : []),
          { text: w.text, type: 'word', start: w.start, end: w.end, speaker_id: `speaker_${w.speaker}`, logprob: -0.05 },
        ]),
      });
    }
    const text = heard(fake);
    const words = wordsOf(text);
    return ok({
      language_code: 'eng',
      language_probability: 0.99,
      text,
      words: words.flatMap((w, i) => [
        { text: w, type: 'word', start: i * 0.3, end: i * 0.3 + 0.25, logprob: -0.05 },
        { text: ' ', type: 'spacing', start: i * 0.3 + 0.25, end: i * 0.3 + 0.3, logprob: -3 },
      ]),
    });
  },
  async gladia(req, fake, state) {
    must(req.headers['x-gladia-key'] === fake.key, 'x-gladia-key must be the key');
    if (req.method === 'POST' && req.path === '/v2/upload') {
      const form = await formOf(req);
      onlyKnown(form.keys(), ['audio'], 'part');
      await fileField(form, 'audio');
      return ok({ audio_url: 'https://api.gladia.io/file/gl-file-1', audio_metadata: { id: 'gl-file-1', filename: 'audio.wav', extension: 'wav', size: req.body.length, audio_duration: 3.26, number_of_channels: 1 } });
    }
    if (req.method === 'POST' && req.path === '/v2/pre-recorded') {
      const body = jsonOf(req);
      must(body.audio_url === 'https://api.gladia.io/file/gl-file-1', 'audio_url must be the uploaded file URL');
      onlyKnown(Object.keys(body), FIELDS.gladia, 'property');
      const lc = body.language_config as { languages?: unknown; code_switching?: unknown } | undefined;
      if (lc !== undefined) {
        onlyKnown(Object.keys(lc), ['languages', 'code_switching'], 'language_config property');
        must(Array.isArray(lc.languages) && lc.languages.every((l) => GLADIA_LANGUAGES.includes(String(l))), 'language_config.languages must be supported language codes');
      }
      // PreRecordedV2CustomVocabularyConfig: {vocabulary: (string | {value, intensity?, pronunciations?, language?})[], default_intensity?},
      // read only when `custom_vocabulary` is true.
      const vocab: string[] = [];
      if (body.custom_vocabulary_config !== undefined) {
        must(body.custom_vocabulary === true, 'custom_vocabulary_config needs custom_vocabulary: true');
        const cfg = body.custom_vocabulary_config as Record<string, unknown>;
        onlyKnown(Object.keys(cfg ?? {}), ['vocabulary', 'default_intensity'], 'custom_vocabulary_config property');
        must(Array.isArray(cfg.vocabulary) && cfg.vocabulary.length > 0, 'custom_vocabulary_config.vocabulary must be a non-empty list');
        for (const v of cfg.vocabulary as unknown[]) {
          if (typeof v === 'string') vocab.push(v);
          else {
            must(v && typeof v === 'object' && typeof (v as { value?: unknown }).value === 'string', 'vocabulary entries are strings or objects with a value');
            onlyKnown(Object.keys(v as object), ['value', 'intensity', 'pronunciations', 'language'], 'vocabulary entry property');
            vocab.push((v as { value: string }).value);
          }
        }
        if (cfg.default_intensity !== undefined) must(typeof cfg.default_intensity === 'number' && cfg.default_intensity >= 0 && cfg.default_intensity <= 1, 'default_intensity must be 0..1');
      } else if (body.custom_vocabulary !== undefined) must(typeof body.custom_vocabulary === 'boolean', 'custom_vocabulary must be a boolean');
      // PreRecordedV2InitTranscriptionRequest.diarization?: boolean; diarization_config {number_of_speakers, min_speakers, max_speakers, enhanced}.
      if (body.diarization !== undefined) must(typeof body.diarization === 'boolean', 'diarization must be a boolean');
      if (body.diarization_config !== undefined) {
        must(body.diarization === true, 'diarization_config needs diarization: true');
        onlyKnown(Object.keys(body.diarization_config as object), ['number_of_speakers', 'min_speakers', 'max_speakers', 'enhanced'], 'diarization_config property');
      }
      state.set('diarization', body.diarization === true ? 1 : 0);
      boosted(fake, vocab);
      return ok({ id: 'gl-1', result_url: 'https://api.gladia.io/v2/pre-recorded/gl-1' }, 201);
    }
    if (req.method === 'GET' && req.path === '/v2/pre-recorded/gl-1') {
      if (!pollDone(state, 'gl-1', fake)) return ok({ id: 'gl-1', status: 'processing', result: null, error_code: null });
      if (fake.mode === 'job-error') return ok({ id: 'gl-1', status: 'error', error_code: 500, result: null });
      if (state.get('diarization') === 1) {
        // Each utterance carries `speaker` (0, 1… by order of appearance) and its words.
        const sw = speakerWordsOf(fake);
        let i = 0;
        const utterances = speakerSegments(sw).map((g) => {
          const words = sw.slice(i, (i += g.text.split(' ').length));
          return { start: g.start, end: g.end, confidence: 0.9, channel: 0, language: 'en', speaker: g.speaker, text: g.text, words: words.map((w) => ({ word: ` ${w.text}`, start: w.start, end: w.end, confidence: 0.9 })) };
        });
        return ok({ id: 'gl-1', status: 'done', error_code: null, result: { metadata: { audio_duration: 3.26, number_of_distinct_channels: 1 }, transcription: { full_transcript: sw.map((w) => w.text).join(' '), languages: ['en'], utterances } } });
      }
      return ok({
        id: 'gl-1',
        status: 'done',
        error_code: null,
        result: {
          metadata: { audio_duration: 3.26, number_of_distinct_channels: 1 },
          transcription: {
            full_transcript: heard(fake),
            languages: ['en'],
            utterances: [
              { start: 0, end: 1.6, confidence: 0.9, channel: 0, language: 'en', text: 'Please call me back', words: [] },
              { start: 1.6, end: 3.2, confidence: 0.7, channel: 0, language: 'en', text: 'after the meeting tomorrow morning.', words: [] },
            ],
          },
        },
      });
    }
    throw new Violation(`unexpected ${req.method} ${req.path}`);
  },
};

/** Starts the fake of `vendor` on 127.0.0.1 (random port). */
export async function startFakeVendor(vendor: Vendor, opts: { key?: string; mode?: FakeMode; delayMs?: number; pendingPolls?: number; script?: KeytermScript } = {}): Promise<FakeVendor> {
  const state = new Map<string, number>();
  const hanging = new Set<ServerResponse>();
  const fake: FakeVendor = {
    vendor,
    url: '',
    key: opts.key ?? `${vendor}-test-key-123`,
    mode: opts.mode ?? 'ok',
    delayMs: opts.delayMs ?? 0,
    pendingPolls: opts.pendingPolls ?? 1,
    transcript: FAKE_TRANSCRIPT,
    requests: [],
    violations: [],
    keyterms: [],
    ...(opts.script ? { script: opts.script } : {}),
    close: async () => {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
  const server: Server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const u = new URL(req.url ?? '/', 'http://fake');
    const rec: RecordedRequest = { method: req.method ?? 'GET', path: u.pathname, query: u.searchParams, headers: req.headers, body: Buffer.concat(chunks) };
    const first = rec.method === 'POST' && FLOW_START[vendor].includes(rec.path);
    if (first) state.clear();
    fake.requests.push(rec);
    let reply: Reply;
    try {
      if (first && fake.mode === 'hang') reply = 'hang';
      else if (first && fake.mode === '401') reply = { status: 401, body: AUTH_ERRORS[vendor] };
      else if (first && fake.mode === '429') reply = { status: 429, body: { error: { message: 'Too many requests, slow down' } } };
      else if (first && fake.mode === '500') reply = { status: 500, body: { error: { message: 'internal failure' } } };
      else if (first && fake.mode === '413') reply = { status: 413, body: { error: 'Payload too large' } };
      else if (first && fake.mode === 'malformed') reply = { status: 200, body: '<html>gateway says hi</html>' };
      else reply = await HANDLERS[vendor](rec, fake, state);
    } catch (err) {
      if (!(err instanceof Violation)) throw err;
      fake.violations.push(err.message);
      reply = { status: 400, body: BAD_REQUEST[vendor](`fake ${vendor}: ${err.message}`) };
    }
    if (reply === 'hang') {
      hanging.add(res);
      return;
    }
    const send = () => {
      const text = typeof reply.body === 'string' ? reply.body : JSON.stringify(reply.body);
      res.writeHead(reply.status, { 'content-type': typeof reply.body === 'string' ? 'text/html' : 'application/json' }).end(text);
    };
    if (first && fake.delayMs > 0) setTimeout(send, fake.delayMs);
    else send();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  fake.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return fake;
}
