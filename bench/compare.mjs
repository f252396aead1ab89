#!/usr/bin/env node
// Compare benchmark (issue 21). Run `npm run build` first; uses the built modules in-process.
// Two evaluations of 20,000 utterances each (100 texts × 50 speakers in 5 groups × 2 conditions × 2
// providers), written straight into a fresh SQLite database through the repositories (evaluation, texts,
// speakers, conditioned audio rows, one utterance row each), then timed in the same run:
//   summary  — what the service computes when one evaluation finishes: its utterances read back, the
//              audio seconds, and `summarise` (summary rows with bootstrap intervals and comparisons);
//   compare  — GET /v1/evaluations/{id}/compare's work: `compareEvaluations` (both runs read, matched,
//              paired bootstrap per provider × condition × group, setup differences).
// Goals: compare ≤ 2 × summary and ≤ 1 s. BENCH_RUNS (default 3) repeats it; each run prints its ratios.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';

const dist = (p) => new URL(`../dist/server/${p}`, import.meta.url).href;
const { openSqliteDatabase } = await import(dist('storage/db.js'));
const { insertEvaluation, insertUtterance, allUtterances, listEvaluationSpeakers, finishEvaluation, getEvaluation } = await import(dist('features/evaluations/repository.js'));
const { insertAudio } = await import(dist('features/audio/repository.js'));
const { utteranceAudioSeconds } = await import(dist('features/evaluations/compare-repository.js'));
const { summarise } = await import(dist('features/evaluations/summary.js'));
const { compareEvaluations } = await import(dist('features/evaluations/compare.js'));
const { evaluationLists, evaluationPrices } = await import(dist('features/evaluations/views.js'));
const { conditionedAudioId } = await import(dist('features/evaluations/views.js'));

const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const TEXTS = 100;
const SPEAKERS = 50;
const GROUPS = 5;
const CONDITIONS = ['clean', 'noise:5'];
const PROVIDERS = ['stt-b', 'local-sphinx'];
const USER = 'usr_bench';

/** A deterministic pseudo-random integer stream (the figures must not depend on Math.random). */
function lcg(seed) {
  let x = seed >>> 0;
  return (n) => {
    x = (Math.imul(x, 1664525) + 1013904223) >>> 0;
    // The high bits: an LCG's low bits repeat with a short period.
    return (x >>> 16) % n;
  };
}

/** Stores one finished-to-be evaluation of 20,000 utterances; `drift` adds errors to one provider. */
async function store(db, id, { seed, drift }) {
  const texts = Array.from({ length: TEXTS }, (_, i) => `sentence number ${i} about the weather in the north and the south`);
  const speakers = Array.from({ length: SPEAKERS }, (_, i) => ({ speakerId: `spk_${String(i).padStart(3, '0')}`, group: `group-${i % GROUPS}` }));
  const now = '2026-11-24T00:00:00.000Z';
  const setup = { voxctl_version: '0.1.0', normalizer: { name: 'basic', version: 1 }, providers: { 'stt-b': { adapter: 'deepgram', model: drift ? 'nova-3' : 'nova-2', language: null }, 'local-sphinx': { adapter: 'local-sphinx', model: null, language: null } }, conditions: CONDITIONS, seed: 0 };
  await db.transaction(async () => {
    await insertEvaluation(
      db,
      {
        id,
        user_id: USER,
        name: id,
        total_utterances: TEXTS * SPEAKERS * CONDITIONS.length * PROVIDERS.length,
        providers: JSON.stringify(PROVIDERS),
        conditions: JSON.stringify(CONDITIONS),
        group_by: 'accent',
        normalizer: 'basic',
        normalizer_version: 1,
        seed: 0,
        period: '2026-11',
        created_at: now,
        setup: JSON.stringify(setup),
        prices: JSON.stringify({ 'stt-b': 0.0043, 'local-sphinx': null }),
      },
      texts,
      speakers,
      texts.map((t) => t.length),
    );
    await db.run(`UPDATE evaluations SET status = 'processing' WHERE id = ?`, [id]);
    const random = lcg(seed);
    // Drift draws from its own stream: both runs share every other error, as a rerun of one setup would.
    const driftRandom = lcg(seed + 1);
    for (let t = 0; t < TEXTS; t++) {
      for (let s = 0; s < SPEAKERS; s++) {
        for (let c = 0; c < CONDITIONS.length; c++) {
          const audioId = conditionedAudioId(id, t, s, c);
          await insertAudio(db, { id: audioId, user_id: USER, kind: 'tts', path: `${audioId}.wav`, format: 'wav', bytes: 100_000, duration_seconds: 3 + random(1000) / 1000, sample_rate: 16000, created_at: now });
          for (let p = 0; p < PROVIDERS.length; p++) {
            const errors = random(3) + (drift && p === 0 && driftRandom(4) === 0 ? 1 : 0);
            await insertUtterance(db, {
              evaluation_id: id, text_index: t, speaker_index: s, condition_index: c, provider_index: p,
              transcript: 'x', error_code: null, error_message: null, wer: errors / 12,
              substitutions: errors, deletions: 0, insertions: 0, reference_words: 12, reference_chars: 60, char_errors: errors * 3,
              latency_ms: 200 + random(400), confidence: null, audio_id: audioId,
            });
          }
        }
      }
    }
  });
}

/** The summary the service computes when an evaluation finishes (finish.ts, without the write). */
async function summary(db, id) {
  const row = await getEvaluation(db, id);
  const speakers = await listEvaluationSpeakers(db, id);
  return summarise({
    rows: await allUtterances(db, id),
    ...evaluationLists(row),
    groups: speakers.map((s) => s.grp),
    seed: row.seed,
    audioSeconds: await utteranceAudioSeconds(db, id),
    prices: evaluationPrices(row),
  });
}

/** Wall time and this process's CPU time of `fn` (the machine is shared: CPU time is what others do not move). */
async function timed(fn) {
  const t = performance.now();
  const c = process.cpuUsage();
  const out = await fn();
  const cpu = process.cpuUsage(c);
  return { ms: performance.now() - t, cpuMs: (cpu.user + cpu.system) / 1000, out };
}

const results = [];
for (let run = 1; run <= RUNS; run++) {
  const dir = mkdtempSync(join(tmpdir(), 'voxctl-bench-compare-'));
  const db = openSqliteDatabase(join(dir, 'voxctl.db'));
  try {
    const load = await timed(async () => {
      await store(db, 'ev_baseline', { seed: 1, drift: false });
      await store(db, 'ev_new', { seed: 1, drift: true });
    });
    for (const id of ['ev_baseline', 'ev_new']) {
      const s = await summary(db, id);
      await finishEvaluation(db, { id, status: 'completed', summary: JSON.stringify(s.summary), comparisons: JSON.stringify(s.comparisons), now: new Date().toISOString() });
    }
    // One warm-up of each (JIT, statement cache), then the measured calls.
    await summary(db, 'ev_new');
    await compareEvaluations(db, { id: 'ev_new', baselineId: 'ev_baseline', userId: USER });
    const sum = await timed(() => summary(db, 'ev_new'));
    const cmp = await timed(() => compareEvaluations(db, { id: 'ev_new', baselineId: 'ev_baseline', userId: USER }));
    const regressed = cmp.out.rows.filter((r) => r.verdict === 'regressed').map((r) => `${r.provider}/${r.condition}/${r.group}`);
    const ratio = cmp.ms / sum.ms;
    const cpuRatio = cmp.cpuMs / sum.cpuMs;
    results.push({ summary: sum.ms, compare: cmp.ms, ratio, cpuRatio, compareCpu: cmp.cpuMs });
    console.log(
      `run ${run}: inserted 2 × ${cmp.out.matched_utterances.toLocaleString('en-US')} utterances in ${(load.ms / 1000).toFixed(1)} s; ` +
        `summary ${sum.ms.toFixed(0)} ms wall / ${sum.cpuMs.toFixed(0)} ms CPU, compare ${cmp.ms.toFixed(0)} ms wall / ${cmp.cpuMs.toFixed(0)} ms CPU → ` +
        `compare/summary ${ratio.toFixed(2)} wall, ${cpuRatio.toFixed(2)} CPU (goal ≤ 2.00); ` +
        `${cmp.out.rows.length} rows, regressed: ${regressed.join(', ') || 'none'}; changed_setup: ${cmp.out.changed_setup.join('; ')}`,
    );
  } finally {
    await db.close();
    if (process.env.BENCH_KEEP) console.log(`kept ${dir}`);
    else rmSync(dir, { recursive: true, force: true });
  }
}
const worst = Math.max(...results.map((r) => r.ratio));
const worstCpu = Math.max(...results.map((r) => r.cpuRatio));
const slowest = Math.max(...results.map((r) => r.compare));
const slowestCpu = Math.max(...results.map((r) => r.compareCpu));
const verdict = (ok) => (ok ? 'met' : 'MISSED');
console.log(
  `worst compare/summary ${worst.toFixed(2)} wall, ${worstCpu.toFixed(2)} CPU (goal ≤ 2.00): ${verdict(worst <= 2)}; ` +
    `slowest compare ${slowest.toFixed(0)} ms wall, ${slowestCpu.toFixed(0)} ms CPU (goal ≤ 1000): wall ${verdict(slowest <= 1000)}, CPU ${verdict(slowestCpu <= 1000)}; ` +
    `load average ${(await import('node:os')).loadavg()[0].toFixed(1)} on ${(await import('node:os')).availableParallelism()} cores`,
);
