// A vitest reporter for `npm test` (scripts/test.mjs): when the run ends, writes each test file's time —
// its project, its path, and the milliseconds from its harness setup and import to its last test — as JSON
// to the file VOXCTL_TEST_TIMINGS names, so the run can end by naming its slowest files.
import { writeFileSync } from 'node:fs';
import { relative } from 'node:path';

export default class FileTimings {
  onInit(vitest) {
    this.root = vitest.config.root;
  }

  onTestRunEnd(testModules) {
    const out = process.env.VOXCTL_TEST_TIMINGS;
    if (!out) return;
    const rows = testModules.map((m) => {
      const d = m.diagnostic();
      return {
        project: m.project.name,
        file: relative(this.root, m.moduleId),
        ms: Math.round(d.environmentSetupDuration + d.prepareDuration + d.setupDuration + d.collectDuration + d.duration),
      };
    });
    writeFileSync(out, JSON.stringify(rows));
  }
}
