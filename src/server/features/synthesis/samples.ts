import type { Db } from '../../storage/db.js';
import type { TtsPool } from '../../engines/tts/types.js';
import type { Clock } from '../../clock.js';
import { getAudio, insertAudio, type AudioRow } from '../audio/index.js';
import { findSpeaker, speakerBinding } from './speakers.js';
import { renderSpeech } from './synthesis.js';
import { wavInput, writeAudioOnly, type AudioBlobStore } from '../audio/index.js';

/** Audio ids of speaker samples: `smp_{speaker_id}`. */
export const SAMPLE_PREFIX = 'smp_';

/** The sentence a speaker's sample says: in its native language when we have one, else in English. */
export function sampleSentence(nativeLanguage: string | null | undefined): string {
  return SAMPLE_SENTENCES[nativeLanguage ?? 'English'] ?? SAMPLE_SENTENCES.English!;
}

const SAMPLE_SENTENCES: Record<string, string> = {
  English: 'Hello! This is a sample of my voice. I can read any text you give me.',
  German: 'Hallo! Das ist eine Probe meiner Stimme.',
  French: 'Bonjour ! Voici un exemple de ma voix.',
  Spanish: '¡Hola! Esta es una muestra de mi voz.',
  Italian: 'Ciao! Questo è un esempio della mia voce.',
  Portuguese: 'Olá! Esta é uma amostra da minha voz.',
  Catalan: 'Hola! Aquesta és una mostra de la meva veu.',
  Dutch: 'Hallo! Dit is een voorbeeld van mijn stem.',
  Polish: 'Cześć! To jest próbka mojego głosu.',
  Russian: 'Привет! Это образец моего голоса.',
  Ukrainian: 'Привіт! Це зразок мого голосу.',
  Swedish: 'Hej! Det här är ett prov på min röst.',
  Danish: 'Hej! Dette er en prøve på min stemme.',
  Norwegian: 'Hei! Dette er en prøve på stemmen min.',
  Finnish: 'Hei! Tämä on näyte äänestäni.',
  Czech: 'Ahoj! Toto je ukázka mého hlasu.',
  Turkish: 'Merhaba! Bu benim sesimden bir örnek.',
  Greek: 'Γεια σας! Αυτό είναι ένα δείγμα της φωνής μου.',
  Hindi: 'नमस्ते! यह मेरी आवाज़ का एक नमूना है।',
  Arabic: 'مرحبا! هذه عينة من صوتي.',
  'Mandarin Chinese': '你好！这是我的声音样本。',
  Japanese: 'こんにちは。これは私の声のサンプルです。',
  Indonesian: 'Halo! Ini adalah contoh suara saya.',
};

/** What a sample needs. */
export interface SampleDeps {
  db: Db;
  blobs: AudioBlobStore;
  clock: Clock;
  /** Read per sample: a test may swap the runtime's pool. */
  tts(): TtsPool;
}

/** Speaker samples (`smp_{speaker id}`), one provider per runtime. */
export interface SampleProvider {
  exists(audioId: string): Promise<boolean>;
  get(audioId: string): Promise<AudioRow | undefined>;
}

/**
 * Speaker samples, synthesised on first request and stored as kind `sample`. Concurrent first
 * requests for one speaker share a single synthesis (the in-flight map lives in this instance).
 */
export function createSampleProvider(deps: SampleDeps): SampleProvider {
  const inFlight = new Map<string, Promise<AudioRow | undefined>>();

  async function create(audioId: string): Promise<AudioRow | undefined> {
    const speaker = await findSpeaker(deps.db, audioId.slice(SAMPLE_PREFIX.length));
    if (!speaker) return undefined;
    const voice = speakerBinding(speaker);
    const sentence = sampleSentence(speaker.native_language);
    // A language whose script the engine cannot voice still gets a sample: the English sentence.
    const out = await renderSpeech(deps.tts(), { text: sentence, voice }).catch((err: unknown) => {
      if (sentence === SAMPLE_SENTENCES.English) throw err;
      return renderSpeech(deps.tts(), { text: SAMPLE_SENTENCES.English!, voice });
    });
    // Another instance may store the same sample at the same moment (its in-flight map is its own): the
    // id is the speaker's, the bytes are the same, and the first row recorded is the one every reader gets.
    const row = await writeAudioOnly(deps.blobs, wavInput(out.pcm, out.sampleRate, { id: audioId, userId: null, kind: 'sample', now: deps.clock.now() }));
    await insertAudio(deps.db, row, { ifAbsent: true });
    return (await getAudio(deps.db, audioId)) ?? row;
  }

  return {
    /** Whether `audioId` names a sample that exists or can be made (its speaker is in the catalogue). */
    async exists(audioId: string): Promise<boolean> {
      return (await getAudio(deps.db, audioId)) !== undefined || (await findSpeaker(deps.db, audioId.slice(SAMPLE_PREFIX.length))) !== undefined;
    },
    /** The sample's audio row, creating it when missing; undefined for an unknown speaker. */
    async get(audioId: string): Promise<AudioRow | undefined> {
      const existing = await getAudio(deps.db, audioId);
      if (existing) return existing;
      let pending = inFlight.get(audioId);
      if (!pending) {
        pending = create(audioId).finally(() => inFlight.delete(audioId));
        inFlight.set(audioId, pending);
      }
      return pending;
    },
  };
}
