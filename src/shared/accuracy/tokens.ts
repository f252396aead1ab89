/** Token interning for the accuracy DPs. */

/** Maps tokens to small integers so the DP compares numbers, not strings. */
export function internTokens(a: readonly string[], b: readonly string[]): [Int32Array, Int32Array, number] {
  const ids = new Map<string, number>();
  const intern = (xs: readonly string[]): Int32Array => {
    const out = new Int32Array(xs.length);
    for (let i = 0; i < xs.length; i++) {
      const x = xs[i]!;
      let id = ids.get(x);
      if (id === undefined) {
        id = ids.size;
        ids.set(x, id);
      }
      out[i] = id;
    }
    return out;
  };
  const ia = intern(a);
  const ib = intern(b);
  return [ia, ib, ids.size];
}

