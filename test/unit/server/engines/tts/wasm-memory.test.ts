import { describe, expect, it } from 'vitest';
import { restoreMemory, usedExtent } from '../../../../../src/server/engines/tts/wasm-memory.js';

describe('usedExtent', () => {
  it('finds the end of the last non-zero byte, at any alignment', () => {
    const heap = new Uint8Array(64 * 1024);
    expect(usedExtent(heap)).toBe(0);
    heap[0] = 1;
    expect(usedExtent(heap)).toBe(1);
    heap[4097] = 7;
    expect(usedExtent(heap)).toBe(4098);
    heap[heap.length - 1] = 1;
    expect(usedExtent(heap)).toBe(heap.length);
  });
});

describe('restoreMemory', () => {
  it('puts back the snapshot and zeros everything written past it', () => {
    const heap = new Uint8Array(64 * 1024);
    heap.set([1, 2, 3, 4, 5]);
    const initial = heap.slice(0, usedExtent(heap));
    heap.set([9, 9, 9], 2); // the program changed its data…
    heap[40_000] = 1; // …and wrote far past it
    heap[65_535] = 2;
    restoreMemory(heap, initial);
    expect(Array.from(heap.subarray(0, 8))).toEqual([1, 2, 3, 4, 5, 0, 0, 0]);
    expect(usedExtent(heap)).toBe(5);
  });

  it('restores a memory that grew since the snapshot', () => {
    const initial = new Uint8Array([7, 7]);
    const grown = new Uint8Array(2 * 64 * 1024);
    grown.fill(3);
    restoreMemory(grown, initial);
    expect(grown[0]).toBe(7);
    expect(usedExtent(grown)).toBe(2);
  });
});
