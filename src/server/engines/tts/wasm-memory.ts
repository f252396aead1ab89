/**
 * Resetting a WebAssembly instance's linear memory to a snapshot, so one instance can serve call after
 * call as if each were its first: cheaper than a new instance per call, and with no dead instances left
 * for the garbage collector. Both engines run this way (DESIGN §4.6: each call starts from the initial state).
 */

/**
 * Offset just past the last non-zero byte of `heap` (a wasm memory: 64 KiB pages, so whole 32-bit words).
 * Reading pages the program never touched maps the kernel's shared zero page, which costs no resident memory.
 */
export function usedExtent(heap: Uint8Array): number {
  const words = new Int32Array(heap.buffer, heap.byteOffset, heap.byteLength >>> 2);
  let i = words.length - 1;
  while (i >= 0 && words[i] === 0) i--;
  let end = (i + 1) * 4;
  while (end > 0 && heap[end - 1] === 0) end--;
  return end;
}

/**
 * Puts `heap` back as it was when `initial` was taken (a snapshot up to its last non-zero byte): the
 * snapshot, then zeros up to where the last call wrote. Only what was written is touched, so pages the
 * program never used stay unmapped.
 */
export function restoreMemory(heap: Uint8Array, initial: Uint8Array): void {
  const written = usedExtent(heap);
  heap.set(initial);
  if (written > initial.length) heap.fill(0, initial.length, written);
}
