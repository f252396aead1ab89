/**
 * Each vendor's spelling of a language, from the BCP-47 tag voxctl takes (`en`, `en-GB`, `pt_BR`). A tag a
 * vendor cannot take maps to undefined: the config validation refuses it in a binding, and an adapter
 * refuses it in a request before calling anyone. Sources are listed in docs/stt-providers.md.
 */
import { SttError } from './types.js';

/**
 * The bare language codes of AssemblyAI's `TranscriptLanguageCode` and of Gladia's
 * `PreRecordedV2TranscriptionLanguageCode` (the same 99 codes, Whisper's set; AssemblyAI-node-sdk
 * `src/types/openapi.generated.ts`, gladiaio/sdk `packages/sdk-js/src/v2/prerecorded/generated-types.ts`).
 */
export const WHISPER_LANGUAGES: ReadonlySet<string> = new Set(
  (
    'af am ar as az ba be bg bn bo br bs ca cs cy da de el en es et eu fa fi fo fr gl gu ha haw he hi hr ht hu hy id ' +
    'is it ja jw ka kk km kn ko la lb ln lo lt lv mg mi mk ml mn mr ms mt my ne nl nn no oc pa pl ps pt ro ru sa sd ' +
    'si sk sl sn so sq sr su sv sw ta te tg th tk tl tr tt uk ur uz vi yi yo zh'
  ).split(' '),
);

/** AssemblyAI's only regional codes; British English is `en_uk`, not `en_gb`. */
const ASSEMBLYAI_REGIONAL: Readonly<Record<string, string>> = { 'en-au': 'en_au', 'en-gb': 'en_uk', 'en-uk': 'en_uk', 'en-us': 'en_us', 'de-ch': 'de_ch' };

/** ISO 639-1 codes those enums spell differently (Javanese is Whisper's `jw`, Bokmål is `no`, old Hebrew `iw`). */
const ALIASES: Readonly<Record<string, string>> = { jv: 'jw', nb: 'no', iw: 'he' };

/**
 * Azure's and Google's short-audio APIs need a full locale; a bare language gets the locale most of its
 * speakers use (both vendors list every one of these). Other bare codes must be given with a region.
 */
const DEFAULT_LOCALE: Readonly<Record<string, string>> = {
  ar: 'ar-SA', bg: 'bg-BG', bn: 'bn-IN', ca: 'ca-ES', cs: 'cs-CZ', da: 'da-DK', de: 'de-DE', el: 'el-GR', en: 'en-US',
  es: 'es-ES', et: 'et-EE', fa: 'fa-IR', fi: 'fi-FI', fr: 'fr-FR', he: 'he-IL', hi: 'hi-IN', hr: 'hr-HR', hu: 'hu-HU',
  id: 'id-ID', it: 'it-IT', ja: 'ja-JP', ko: 'ko-KR', lt: 'lt-LT', lv: 'lv-LV', ms: 'ms-MY', nb: 'nb-NO', nl: 'nl-NL',
  no: 'nb-NO', pl: 'pl-PL', pt: 'pt-BR', ro: 'ro-RO', ru: 'ru-RU', sk: 'sk-SK', sl: 'sl-SI', sv: 'sv-SE', ta: 'ta-IN',
  te: 'te-IN', th: 'th-TH', tr: 'tr-TR', uk: 'uk-UA', ur: 'ur-PK', vi: 'vi-VN', zh: 'zh-CN',
};

/** The subtags of a tag, lower case; `en_GB` and `en-gb` alike. */
function subtags(tag: string): string[] {
  return tag.trim().toLowerCase().split(/[-_]/).filter(Boolean);
}

/** `en-GB` → `en` (vendors that take ISO 639-1 codes). */
export function primaryLanguage(tag: string): string {
  return subtags(tag)[0] ?? tag.toLowerCase();
}

/** The Whisper-set code of a tag's language, or undefined when the set lacks it. */
function whisperLanguage(tag: string): string | undefined {
  const base = primaryLanguage(tag);
  const code = ALIASES[base] ?? base;
  return WHISPER_LANGUAGES.has(code) ? code : undefined;
}

/** AssemblyAI's `language_code` for a tag (`en-GB` → `en_uk`, `fr-FR` → `fr`), or undefined when it lists none. */
export function assemblyAiLanguage(tag: string): string | undefined {
  const parts = subtags(tag);
  const regional = ASSEMBLYAI_REGIONAL[parts.slice(0, 2).join('-')];
  if (regional) return regional;
  return whisperLanguage(tag);
}

/** Gladia's `language_config.languages` entry for a tag (region dropped), or undefined when it lists none. */
export const gladiaLanguage = whisperLanguage;

/**
 * A full locale for Azure and Google: `en-gb` → `en-GB`, `zh-hant-tw` → `zh-Hant-TW`, bare `en` → `en-US`;
 * undefined for a bare language without a default or a tag that is no locale.
 */
export function fullLocale(tag: string): string | undefined {
  const parts = subtags(tag);
  const [lang] = parts;
  if (!lang || !/^[a-z]{2,3}$/.test(lang)) return undefined;
  if (parts.length === 1) return DEFAULT_LOCALE[lang];
  const rest = parts.slice(1).map((p) => (p.length === 4 ? p[0]!.toUpperCase() + p.slice(1) : p.toUpperCase()));
  const region = rest[rest.length - 1]!;
  if (!/^([A-Z]{2}|\d{3})$/.test(region) || rest.length > 2 || (rest.length === 2 && !/^[A-Z][a-z]{3}$/.test(rest[0]!))) return undefined;
  return [lang, ...rest].join('-');
}

const LOCALE_HINT = `a full locale such as en-GB (bare codes with a default: ${Object.keys(DEFAULT_LOCALE).join(', ')})`;

/** The vendor's spelling of `tag`; a tag it cannot take is refused before anyone is called. */
export function vendorLanguage(adapter: keyof typeof LANGUAGE_OF, tag: string): string {
  const rule = LANGUAGE_OF[adapter];
  const code = rule.map(tag);
  if (code === undefined) throw new SttError('unsupported_audio', `${rule.vendor} does not support the language "${tag}": give ${rule.hint}`);
  return code;
}

/** How each adapter spells a tag; adapters absent here pass it on as given (OpenAI, Deepgram, Rev.ai, ...). */
export const LANGUAGE_OF = {
  assemblyai: { vendor: 'AssemblyAI', map: assemblyAiLanguage, hint: 'a language of its TranscriptLanguageCode list, e.g. en, en-GB, fr' },
  gladia: { vendor: 'Gladia', map: gladiaLanguage, hint: 'a language of its TranscriptionLanguageCode list, e.g. en, fr' },
  google: { vendor: 'Google Speech-to-Text', map: fullLocale, hint: LOCALE_HINT },
  azure: { vendor: 'Azure Speech', map: fullLocale, hint: LOCALE_HINT },
};
