/** An inclusive byte range of a resource. */
export interface ResolvedRange {
  start: number;
  end: number;
}

/**
 * Reads a `Range` header (RFC 9110 §14.1.2) against a resource of `size` bytes: undefined means "send the
 * whole resource" (no header, another unit, a malformed or multi-range value — all legal to ignore);
 * 'unsatisfiable' means 416. Suffix ranges (`bytes=-500`) and open ends (`bytes=100-`) are resolved.
 */
export function resolveRange(header: string | undefined, size: number): ResolvedRange | 'unsatisfiable' | undefined {
  if (header === undefined) return undefined;
  const m = /^\s*bytes\s*=\s*(\d*)\s*-\s*(\d*)\s*$/i.exec(header);
  if (!m || (m[1] === '' && m[2] === '')) return undefined;
  if (m[1] === '') {
    const suffix = Number(m[2]);
    if (suffix === 0 || size === 0) return 'unsatisfiable';
    return { start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(m[1]);
  const end = m[2] === '' ? size - 1 : Math.min(Number(m[2]), size - 1);
  if (m[2] !== '' && Number(m[2]) < start) return undefined;
  if (start >= size) return 'unsatisfiable';
  return { start, end };
}
