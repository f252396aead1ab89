import { describe, expect, it } from 'vitest';
import { createResponseMemo } from '../../../../src/server/plugins/response-memo.js';

describe('response memo', () => {
  it('answers a key only within the period it was kept in, and a new period forgets the old answers', () => {
    const memo = createResponseMemo();
    memo.set(10, 'a', Buffer.from('{"a":1}'));
    memo.set(10, 'b', Buffer.from('{"b":1}'));
    expect(memo.get(10, 'a')?.toString()).toBe('{"a":1}');
    expect(memo.get(11, 'a')).toBeUndefined();
    memo.set(11, 'a', Buffer.from('{"a":2}'));
    expect(memo.get(11, 'a')?.toString()).toBe('{"a":2}');
    expect(memo.get(11, 'b')).toBeUndefined();
    // A late request of an earlier period is not answered from the new one, nor does it bring the old back.
    expect(memo.get(10, 'a')).toBeUndefined();
  });

  it('stays within its size: past it, the kept answers are forgotten before the new one is kept', () => {
    const memo = createResponseMemo(10);
    memo.set(1, 'a', Buffer.from('123456'));
    memo.set(1, 'b', Buffer.from('1234'));
    expect(memo.get(1, 'a')?.toString()).toBe('123456');
    memo.set(1, 'c', Buffer.from('12'));
    expect(memo.get(1, 'a')).toBeUndefined();
    expect(memo.get(1, 'b')).toBeUndefined();
    expect(memo.get(1, 'c')?.toString()).toBe('12');
  });
});
