import { Writable } from 'node:stream';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { bindCaller, loggerOptions, redactSignature } from '../../../src/server/logger.js';

/** A pino logger with the server's options whose lines are collected as parsed objects. */
function collectingLogger(): { log: pino.Logger; lines: Record<string, unknown>[] } {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  return { log: pino(loggerOptions('info'), stream), lines };
}

describe('the server logger', () => {
  it("writes the caller's ids on the lines of a bound request logger and its children, on no one else's", async () => {
    const { log, lines } = collectingLogger();
    const request = log.child({ reqId: 'req_1' });
    const other = log.child({ reqId: 'req_2' });
    bindCaller(request, { user_id: 'usr_1', key_id: 'key_1' });
    request.info('request completed');
    request.child({ job: 'job_1' }).warn({ key: 'vox_secret' }, 'inside');
    other.info('request completed');
    log.info('runner line');
    await new Promise((r) => setImmediate(r));
    expect(lines.map((l) => [l.msg, l.user_id, l.key_id])).toEqual([
      ['request completed', 'usr_1', 'key_1'],
      ['inside', 'usr_1', 'key_1'],
      ['request completed', undefined, undefined],
      ['runner line', undefined, undefined],
    ]);
    // The redaction still applies to what a line carries besides the ids.
    expect(lines[1]).toMatchObject({ reqId: 'req_1', job: 'job_1', key: '[redacted]' });
  });

  it('redacts the signature of a signed URL', () => {
    expect(redactSignature('/v1/audio/a.wav?expires=1&sig=abc&x=1')).toBe('/v1/audio/a.wav?expires=1&sig=[redacted]&x=1');
  });
});
