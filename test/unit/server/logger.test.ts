import { Writable } from 'node:stream';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { bindCaller, loggerOptions, requestLoggerFactory } from '../../../src/server/logger.js';
import { redactSignature } from '../../../src/shared/redact-signature.js';

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

  it('gives a request a logger whose lines read as a pino child\'s, with its id, caller and children', async () => {
    const { log, lines } = collectingLogger();
    const viaChild = log.child({ reqId: 'req_1' });
    const request = requestLoggerFactory(log, { reqId: 'req_1' }, {});
    viaChild.info({ res: { statusCode: 200 } }, 'request completed');
    request.info({ res: { statusCode: 200 } }, 'request completed');
    bindCaller(request, { user_id: 'usr_1', key_id: 'key_1' });
    request.warn('slow');
    request.child({ job: 'job_1' }).error({ key: 'vox_secret' }, 'inside');
    log.info('runner line');
    // A route with its own level gets a real child at that level.
    const quiet = requestLoggerFactory(log, { reqId: 'req_2' }, { level: 'error' });
    quiet.warn('not written');
    quiet.error('written');
    await new Promise((r) => setImmediate(r));
    const shape = (line: Record<string, unknown>) => Object.keys(line).filter((k) => k !== 'time');
    expect(shape(lines[1]!)).toEqual(shape(lines[0]!));
    expect({ ...lines[1], time: 0 }).toEqual({ ...lines[0], time: 0 });
    expect(shape(lines[0]!)).toEqual(['level', 'pid', 'hostname', 'reqId', 'res', 'msg']);
    expect(lines.slice(2).map((l) => [l.msg, l.reqId, l.user_id])).toEqual([
      ['slow', 'req_1', 'usr_1'],
      ['inside', 'req_1', 'usr_1'],
      ['runner line', undefined, undefined],
      ['written', 'req_2', undefined],
    ]);
    expect(lines[3]).toMatchObject({ job: 'job_1', key: '[redacted]' });
  });

  it('redacts the signature of a signed URL', () => {
    expect(redactSignature('/v1/audio/a.wav?expires=1&sig=abc&x=1')).toBe('/v1/audio/a.wav?expires=1&sig=[redacted]&x=1');
  });
});
