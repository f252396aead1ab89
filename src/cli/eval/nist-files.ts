/**
 * `eval calls ID --nist DIR` (DESIGN §16.2, §16.4): every call's truth and each provider's speaker segments
 * written as the NIST files md-eval, sclite and pyannote read — one `reference.rttm` and `reference.stm`
 * over all calls, and one `{provider}.{condition}.hypothesis.rttm` per provider × condition — so the DER
 * of a summary row can be checked with `md-eval.pl -c 0.25 -r reference.rttm -s stt-b.clean.hypothesis.rttm`.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { VoxClient } from '../../client/index.js';
import { paginate } from '../../client/index.js';
import type { EvaluationUtterance } from '../../shared/schemas/evaluations.js';

/** A provider token or condition as one safe file-name part (`noise:10` → `noise_10`). */
const part = (s: string): string => s.replace(/[^A-Za-z0-9._-]/g, '_');

/** The files written, relative to the directory, in the order written. */
export async function writeNistFiles(client: VoxClient, id: string, dir: string): Promise<string[]> {
  const rows: EvaluationUtterance[] = [];
  for await (const u of paginate((p) => client.listEvaluationUtterances(id, p))) rows.push(u);
  const calls = [...new Set(rows.map((u) => u.text_index + 1))].sort((a, b) => a - b);
  const cells = [...new Map(rows.map((u) => [`${u.provider}\u0000${u.condition}`, { provider: u.provider, condition: u.condition }])).values()];
  const files = new Map<string, string[]>([
    ['reference.rttm', []],
    ['reference.stm', []],
  ]);
  for (const n of calls) {
    files.get('reference.rttm')!.push(await client.getCallFile(id, n, 'reference.rttm'));
    files.get('reference.stm')!.push(await client.getCallFile(id, n, 'reference.stm'));
    for (const c of cells) {
      const name = `${part(c.provider)}.${part(c.condition)}.hypothesis.rttm`;
      if (!files.has(name)) files.set(name, []);
      files.get(name)!.push(await client.getCallFile(id, n, 'hypothesis.rttm', c));
    }
  }
  await mkdir(dir, { recursive: true });
  for (const [name, texts] of files) await writeFile(join(dir, name), texts.join(''));
  return [...files.keys()];
}
