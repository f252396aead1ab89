// The flags of the `eval` commands as commander hands them over, and the options each command acts on:
// pure functions, so a unit test checks the rules without a program, a service or a terminal. (The
// request body of `eval run` is built by request.ts, which reads --texts and --keyterms files.)
import { anyGate, type EvaluationGates } from '../../shared/evaluation-gates.js';
import { usageError } from '../core/errors.js';
import { STDOUT_FILE } from '../core/util.js';
import { parseConditions, type RunFlags } from './request.js';

/** The states of `--status`: the schema's EvaluationStatus, copied so TypeBox is not loaded at start-up (a test checks they match). */
export const STATUSES = ['pending', 'processing', 'completed', 'partial', 'failed', 'cancelled'];

/** The flags of the CI outputs and gates, as commander hands them over. */
export interface CiFlags extends EvaluationGates {
  junit?: string;
  markdown?: string;
}

/** The gates among a command's flags (commander hands over every flag in one object). */
export function gatesOf(flags: CiFlags): EvaluationGates {
  const { maxWer, maxRegression, maxFinalLatency, maxHallucination, minEntityAccuracy, maxFailureRate, maxDer } = flags;
  return { maxWer, maxRegression, maxFinalLatency, maxHallucination, minEntityAccuracy, maxFailureRate, maxDer };
}

/** The flags of `eval run`. */
export type EvalRunFlags = RunFlags & CiFlags & { baseline?: string };

/** How `eval run` goes on once its request is built. */
export interface EvalRunOptions {
  /** Follow the run to its end: --watch, or anything that needs the end (--report, a gate, CI outputs). */
  watch: boolean;
  /** Save the HTML report here when it ends. */
  report?: string;
  force?: boolean;
  /** Price the run and create nothing. */
  dryRun: boolean;
  /** Compare with this evaluation when the run ends (the regression gate's baseline). */
  baseline?: string;
  gates: EvaluationGates;
}

/** Parses what `eval run` does besides its request (checked after the request, before any paid work). */
export function evalRunOptions(flags: EvalRunFlags): EvalRunOptions {
  if (flags.report === STDOUT_FILE) throw usageError('--report - would mix the report with the summary on stdout', 'save it to a file, or run `voxctl eval report ID -o -` afterwards');
  const gates = gatesOf(flags);
  // Without a baseline there is nothing to regress from: the gate could only pass unmeasured (DESIGN §15).
  if (flags.maxRegression !== undefined && flags.baseline === undefined) throw usageError('--max-regression needs --baseline on eval run', 'e.g. voxctl eval run … --baseline ev_base --max-regression 0.02, or voxctl eval rerun ev_base');
  const ci = flags.junit !== undefined || flags.markdown !== undefined || flags.maxRegression !== undefined;
  return {
    watch: Boolean(flags.watch || flags.report !== undefined || anyGate(gates) || ci),
    ...(flags.report !== undefined ? { report: flags.report } : {}),
    ...(flags.force !== undefined ? { force: flags.force } : {}),
    dryRun: Boolean(flags.dryRun),
    ...(flags.baseline !== undefined ? { baseline: flags.baseline } : {}),
    gates,
  };
}

/** The flags of `eval utterances`. */
export interface EvalUtterancesFlags {
  provider?: string;
  condition?: string;
  group?: string;
  errorsOnly?: boolean;
  determinableOnly?: boolean;
  limit?: number;
  offset?: number;
  all?: boolean;
  csv?: boolean;
}

/** The filters of `eval utterances`, as the API's query names them. */
export interface UtterancesQuery {
  provider?: string;
  /** In canonical form (`noise:5` → `noise:5`, ` telephone ` → `telephone`), checked like `--conditions`. */
  condition?: string;
  group?: string;
  errors_only?: true;
  determinable_only?: true;
}

/** Parses the filters of `eval utterances` (a bad `--condition` is exit 2, in the service's words). */
export function utterancesQuery(flags: EvalUtterancesFlags): UtterancesQuery {
  const condition = flags.condition === undefined ? undefined : parseConditions(flags.condition)[0];
  return {
    provider: flags.provider,
    condition,
    group: flags.group,
    ...(flags.errorsOnly ? { errors_only: true as const } : {}),
    ...(flags.determinableOnly ? { determinable_only: true as const } : {}),
  };
}

/** The flags of `eval report`. */
export interface EvalReportFlags {
  out: string;
  open?: boolean;
  force?: boolean;
  json?: boolean;
}

/** Where `eval report` writes, and whether it opens the file. */
export interface EvalReportOptions {
  file: string;
  /** `-o -`: the report goes to stdout, nothing else is printed. */
  toStdout: boolean;
  open: boolean;
  force?: boolean;
}

/** Parses the flags of `eval report` (after `-o` is checked against the disk and the terminal). */
export function evalReportOptions(flags: EvalReportFlags): EvalReportOptions {
  const toStdout = flags.out === STDOUT_FILE;
  if (toStdout && flags.open) throw usageError('--open needs a saved file, not -o -');
  return { file: flags.out, toStdout, open: Boolean(flags.open), ...(flags.force !== undefined ? { force: flags.force } : {}) };
}
