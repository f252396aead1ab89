import { describe, expect, it } from 'vitest';
import { DomainError, ERROR_CODES } from '../../../src/shared/errors.js';
import { STATUS_BY_CODE, statusOf, toErrorResponse } from '../../../src/server/plugins/errors.js';
import { EXIT_BY_ERROR_CODE, ExitCode, exitCodeOfService } from '../../../src/cli/core/errors.js';
import { assertValidText } from '../../../src/shared/text-rules.js';
import { parseCondition } from '../../../src/shared/conditions.js';
import { getNormalizer } from '../../../src/shared/normalizers/index.js';
import { calculateAccuracy } from '../../../src/shared/accuracy.js';

// The exit code DESIGN §7 gives each HTTP status: the CLI's table must agree with the server's.
const exitOfStatus = (status: number): ExitCode =>
  status === 400 ? ExitCode.usage : status === 401 || status === 403 ? ExitCode.auth : status === 404 ? ExitCode.notFound : status === 429 ? ExitCode.rateLimited : ExitCode.error;

describe('error codes (issue 10 item 1)', () => {
  it('are a frozen list of distinct snake_case codes', () => {
    expect(Object.isFrozen(ERROR_CODES)).toBe(true);
    expect(new Set(ERROR_CODES).size).toBe(ERROR_CODES.length);
    for (const code of ERROR_CODES) expect(code).toMatch(/^[a-z]+(_[a-z]+)*$/);
  });

  it('each map to one HTTP error status on the server, and the table holds nothing else', () => {
    expect(Object.keys(STATUS_BY_CODE).sort()).toEqual([...ERROR_CODES].sort());
    for (const code of ERROR_CODES) {
      expect(statusOf(code)).toBeGreaterThanOrEqual(400);
      expect(statusOf(code)).toBeLessThan(600);
    }
  });

  it('each map to the CLI exit code of their status', () => {
    expect(Object.keys(EXIT_BY_ERROR_CODE).sort()).toEqual([...ERROR_CODES].sort());
    for (const code of ERROR_CODES) {
      expect([code, EXIT_BY_ERROR_CODE[code]]).toEqual([code, exitOfStatus(statusOf(code))]);
      expect(exitCodeOfService({ status: statusOf(code), code })).toBe(exitOfStatus(statusOf(code)));
    }
  });

  it('tell a quota from a rate limit by code, never by message text', () => {
    expect(exitCodeOfService({ status: 429, code: 'quota_exceeded' })).toBe(ExitCode.rateLimited);
    // A code this CLI does not know yet (a newer service) still exits by its status.
    expect(exitCodeOfService({ status: 404, code: 'widget_not_found' })).toBe(ExitCode.notFound);
  });

  it('become the envelope with code, message, cause kept out of the body', () => {
    const err = new DomainError('speaker_not_found', 'Speaker not found', { cause: new Error('SELECT internals') });
    expect(err.cause).toBeInstanceOf(Error);
    expect(toErrorResponse(err, 'req_1')).toEqual({
      status: 404,
      body: { detail: 'Speaker not found', status_code: 404, request_id: 'req_1', code: 'speaker_not_found' },
    });
    expect(toErrorResponse(new Error('boom'), 'req_2').body).toEqual({ detail: 'Internal server error', status_code: 500, request_id: 'req_2', code: 'internal_error' });
  });

  it('are what the shared rules throw, so the server and the CLI map them without translating', () => {
    const thrown = (f: () => unknown) => {
      try {
        f();
      } catch (err) {
        return err instanceof DomainError ? [err.code, err.message] : err;
      }
      return undefined;
    };
    expect(thrown(() => assertValidText('x'.repeat(2001)))).toEqual(['text_too_long', 'Text exceeds maximum length of 2000 characters']);
    expect(thrown(() => assertValidText(''))).toEqual(['validation_failed', 'Text must not be empty']);
    expect(thrown(() => parseCondition('underwater'))).toEqual(['validation_failed', 'Unknown condition: underwater']);
    expect(thrown(() => getNormalizer('klingon'))).toEqual(['validation_failed', 'Unknown normalizer: klingon']);
    expect(thrown(() => calculateAccuracy('', 'hello'))).toEqual(['validation_failed', 'Reference must contain at least one word']);
  });
});
