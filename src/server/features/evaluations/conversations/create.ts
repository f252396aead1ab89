/**
 * Creating a conversation evaluation (DESIGN §16.1): the texts become the turns of synthetic calls. The
 * plan (which speakers, which text each turn says, each gap and overlap) is drawn here from the seed, so
 * each call's whole reference and its characters are known and charged before anything is synthesised;
 * the work kind draws the same plan again to build a call (plans are a few numbers: never stored).
 */
import type { Db } from '../../../storage/db.js';
import type { EvaluationCreated } from '../../../../shared/schemas/evaluations.js';
import { validationFailed } from '../../../../shared/errors.js';
import { codePoints } from '../../../../shared/text-rules.js';
import { EVALUATION_LIMITS } from '../../../../shared/constants.js';
import { ConversationPlanError, planConversations, turnTexts, type ConversationOptions } from '../../../../shared/conversations/index.js';
import { reserveCharacters } from '../../limits/index.js';
import { insertConversationEvaluation, type NewCall } from '../repository.js';
import { recordSetup, type DescribeProvider } from '../setup.js';
import type { SelectedSpeaker } from '../speakers.js';
import type { Normalizer } from '../../../../shared/normalizers/index.js';

/** What an evaluation row keeps of its conversation (JSON in `evaluations.conversation`). */
export interface StoredConversation {
  options: ConversationOptions;
  /** The evaluation's speaker selection (§8), in its order: each call draws its speakers from it. */
  speakers: string[];
  /** The evaluation's texts: the turns say them. */
  texts: string[];
}

/** `evaluations.conversation` of an evaluation of recorded calls (the `stm` layout, §16.5): calls, no plan. */
export const RECORDED_CALLS = JSON.stringify({ recorded: true });

/** The `group_by` of a conversation evaluation: its summaries have group `all` only (§16.1). */
export const CONVERSATION_GROUP_BY = 'call';

/** The id of call `n` (from 1) as utterances and exports name it. */
export const callUtteranceId = (n: number): string => `call-${n}`;

/** Everything a conversation evaluation is stored from, once validated. */
export interface ConversationPlanInput {
  userId: string;
  name: string | null;
  texts: readonly string[];
  speakers: readonly SelectedSpeaker[];
  providers: readonly string[];
  conditions: readonly string[];
  normalizer: Pick<Normalizer, 'name' | 'version'>;
  seed: number;
  baselineId: string | null;
  options: ConversationOptions;
}

/** The calls of a plan: each one's whole reference (its turns' texts in turn order) and characters. */
export function plannedCalls(input: Pick<ConversationPlanInput, 'texts' | 'speakers' | 'seed' | 'options'>): NewCall[] {
  const plans = planConversations({ options: input.options, seed: input.seed, speakers: input.speakers.map((s) => s.speakerId), texts: input.texts.length });
  return plans.map((plan) => {
    const said = turnTexts(plan, input.texts);
    return { utteranceId: callUtteranceId(plan.call), reference: said.join(' '), characters: said.reduce((a, t) => a + codePoints(t), 0) };
  });
}

/**
 * Checks and stores a conversation evaluation: enough speakers for a call, at most EVALUATION_LIMITS
 * utterances (calls × conditions × providers); the characters of every turn reserved in the same
 * transaction as the rows (a 429 stores nothing).
 */
export async function storeConversation(deps: { db: Db; now: Date; describe?: DescribeProvider }, id: string, input: ConversationPlanInput): Promise<EvaluationCreated> {
  const { db, now } = deps;
  const { options } = input;
  if (input.speakers.length < options.speakersPerCall) {
    const n = input.speakers.length;
    throw new ConversationPlanError(`conversation.speakers_per_call (${options.speakersPerCall}) exceeds the ${n} selected speaker${n === 1 ? '' : 's'}`);
  }
  const total = options.calls * input.conditions.length * input.providers.length;
  if (total > EVALUATION_LIMITS.utterances) throw validationFailed(`Evaluation exceeds ${EVALUATION_LIMITS.utterances} utterances`);
  const calls = plannedCalls(input);
  const characters = calls.reduce((a, c) => a + c.characters, 0);
  const stored: StoredConversation = { options, speakers: input.speakers.map((s) => s.speakerId), texts: [...input.texts] };
  const { setup, prices } = recordSetup({ ...input, describe: deps.describe });
  await db.transaction(async () => {
    const { period } = await reserveCharacters(db, { userId: input.userId, characters, now });
    await insertConversationEvaluation(
      db,
      {
        id,
        user_id: input.userId,
        name: input.name,
        total_utterances: total,
        providers: JSON.stringify(input.providers),
        conditions: JSON.stringify(input.conditions),
        group_by: CONVERSATION_GROUP_BY,
        normalizer: input.normalizer.name,
        normalizer_version: input.normalizer.version,
        seed: input.seed,
        period,
        created_at: now.toISOString(),
        setup: JSON.stringify(setup),
        baseline_id: input.baselineId,
        prices: JSON.stringify(prices),
        conversation: JSON.stringify(stored),
      },
      calls,
    );
  });
  return { evaluation_id: id, status: 'pending', total_utterances: total, created_at: now.toISOString() };
}

/** The synthetic conversation of an evaluation row, parsed; undefined for utterances or recorded calls. */
export function storedConversation(row: { conversation?: string | null }): StoredConversation | undefined {
  if (!row.conversation) return undefined;
  const stored = JSON.parse(row.conversation) as Partial<StoredConversation>;
  return stored.options ? (stored as StoredConversation) : undefined;
}

/** Whether an evaluation's items are calls (synthetic or recorded, DESIGN §16): scored as calls. */
export const isCallEvaluation = (row: { conversation?: string | null }): boolean => Boolean(row.conversation);
