/**
 * What the evaluation work kind keeps of one evaluation while its syntheses are in flight (DESIGN §8.2):
 * read once from the database and shared by the claims of that evaluation.
 */
import type { Db } from '../../storage/db.js';
import { parseCondition, type AudioCondition } from '../../../shared/conditions.js';
import type { NonSpeechKind } from '../../../shared/non-speech.js';
import { normalizerAt, type Normalizer } from '../../../shared/normalizers/index.js';
import type { CheckedProbes } from './probes.js';
import { getEvaluation, listCorpusItemAudio, listEvaluationSpeakers, listEvaluationTextRows, type EvaluationSpeakerRow } from './repository.js';
import { evaluationLists } from './views.js';
import { isCallEvaluation, storedConversation, type StoredConversation } from './conversations/create.js';

/** One evaluation as its work kind needs it. */
export interface EvaluationContext {
  id: string;
  userId: string;
  texts: string[];
  speakers: EvaluationSpeakerRow[];
  providers: string[];
  conditions: AudioCondition[];
  /** At the version the evaluation recorded (DESIGN §15.6): one started before an upgrade keeps it. */
  normalizer: Normalizer;
  seed: number;
  /** A corpus evaluation (DESIGN §10.5): the recording of each item, by index; nothing is synthesised. */
  recordings?: Map<number, string>;
  /** A streaming evaluation (DESIGN §13.2): each provider hears the audio as a stream at this pace. */
  pace?: number;
  /** Text index → the non-speech clip it is (DESIGN §12.1); the other texts are speech. */
  clips: Map<number, NonSpeechKind>;
  /** The evaluation's probes, as checked at creation. */
  probes?: CheckedProbes;
  /** A synthetic conversation (DESIGN §16.1): item i is call i + 1, built from these texts and speakers. */
  conversation?: StoredConversation;
  /** Its items are calls, synthetic or recorded (DESIGN §16): heard asking for speakers, scored as calls. */
  calls: boolean;
}

/** Reads evaluation `id` as its work kind needs it; undefined when it is gone. */
export async function loadEvaluationContext(db: Db, id: string): Promise<EvaluationContext | undefined> {
  const row = await getEvaluation(db, id);
  if (!row) return undefined;
  const lists = evaluationLists(row);
  const textRows = await listEvaluationTextRows(db, id);
  return {
    id,
    userId: row.user_id,
    texts: textRows.map((t) => t.text),
    clips: new Map(textRows.flatMap((t, i) => (t.kind ? [[i, t.kind as NonSpeechKind] as const] : []))),
    ...(row.probes ? { probes: JSON.parse(row.probes) as CheckedProbes } : {}),
    speakers: await listEvaluationSpeakers(db, id),
    providers: lists.providers,
    conditions: lists.conditions.map(parseCondition),
    normalizer: normalizerAt(row.normalizer, row.normalizer_version),
    seed: row.seed,
    ...(row.corpus_id !== null ? { recordings: await listCorpusItemAudio(db, id) } : {}),
    ...(row.mode === 'streaming' ? { pace: row.pace === null ? 1 : Number(row.pace) } : {}),
    ...(storedConversation(row) ? { conversation: storedConversation(row)! } : {}),
    calls: isCallEvaluation(row),
  };
}
