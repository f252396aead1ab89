/**
 * Minimum-cost assignment (the Hungarian method with potentials, O(n²·m)): the optimal one-to-one speaker
 * mapping of DER (md-eval's weighted bipartite matching, costs = −overlap) and the best speaker pairing of
 * cpWER. Exact, unlike a greedy mapping, and polynomial, unlike enumerating permutations, so a vendor
 * that splits a call into ten "speakers" costs microseconds, not 10! pairings.
 */

/**
 * For a cost matrix `cost[i][j]` (rows ≤ or > columns, any), the column assigned to each row (−1 when there
 * are more rows than columns and the row is left out), minimising the total cost of the assigned pairs.
 */
export function minCostAssignment(cost: readonly (readonly number[])[]): number[] {
  const rows = cost.length;
  const cols = rows === 0 ? 0 : cost[0]!.length;
  if (rows === 0) return [];
  if (rows > cols) {
    // Solve the transpose (rows ≤ columns is what the method needs) and read it back.
    const t = Array.from({ length: cols }, (_, j) => Array.from({ length: rows }, (_, i) => cost[i]![j]!));
    const byCol = minCostAssignment(t);
    const out = new Array<number>(rows).fill(-1);
    byCol.forEach((i, j) => {
      if (i >= 0) out[i] = j;
    });
    return out;
  }
  // e-maxx formulation, 1-based: u, v potentials; p[j] the row matched to column j; way[j] the path.
  const u = new Float64Array(rows + 1);
  const v = new Float64Array(cols + 1);
  const p = new Int32Array(cols + 1);
  const way = new Int32Array(cols + 1);
  for (let i = 1; i <= rows; i++) {
    p[0] = i;
    let j0 = 0;
    const minv = new Float64Array(cols + 1).fill(Infinity);
    const used = new Uint8Array(cols + 1);
    do {
      used[j0] = 1;
      const i0 = p[j0]!;
      let delta = Infinity;
      let j1 = 0;
      for (let j = 1; j <= cols; j++) {
        if (used[j]) continue;
        const cur = cost[i0 - 1]![j - 1]! - u[i0]! - v[j]!;
        if (cur < minv[j]!) {
          minv[j] = cur;
          way[j] = j0;
        }
        if (minv[j]! < delta) {
          delta = minv[j]!;
          j1 = j;
        }
      }
      for (let j = 0; j <= cols; j++) {
        if (used[j]) {
          u[p[j]!]! += delta;
          v[j]! -= delta;
        } else minv[j]! -= delta;
      }
      j0 = j1;
    } while (p[j0] !== 0);
    do {
      const j1 = way[j0]!;
      p[j0] = p[j1]!;
      j0 = j1;
    } while (j0 !== 0);
  }
  const out = new Array<number>(rows).fill(-1);
  for (let j = 1; j <= cols; j++) if (p[j]! > 0) out[p[j]! - 1] = j - 1;
  return out;
}
