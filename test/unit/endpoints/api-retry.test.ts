import { describe, expect, it } from 'vitest';
import { createApiRetry, type RetryPolicy } from '../../../src/endpoints/api-retry.js';
import type { NewDaemonEvent } from '../../../src/events/index.js';
import { MedianDevError } from '../../../src/shared/errors.js';

const FAST: RetryPolicy = { rateLimit: { retries: 2, defaultWaitMs: 5, maxWaitMs: 60_000 }, transient: { retries: 2, baseMs: 1, maxMs: 4 }, starting: { windowMs: 0, baseMs: 1, maxMs: 1 } };

/** A call that fails with `errors` in turn, then answers `ok`. */
function failing(errors: unknown[]) {
  let calls = 0;
  const call = async () => {
    calls += 1;
    const error = errors.shift();
    if (error) throw error;
    return 'ok';
  };
  return { call, calls: () => calls };
}

function useRetry(policy: RetryPolicy = FAST) {
  const events: NewDaemonEvent[] = [];
  return { withRetry: createApiRetry({ policy, emit: (e) => events.push(e) }), events };
}

const unreachable = () => new MedianDevError('median_unreachable', 'The Median API could not be reached.');
const rateLimited = (retryAfterSeconds?: number) =>
  new MedianDevError('rate_limited', 'Too many requests.', { details: { status: 429, ...(retryAfterSeconds === undefined ? {} : { retryAfterSeconds }) } });

describe('the endpoint keeper’s API retry', () => {
  it('tries a transient failure again, saying so, and returns the answer', async () => {
    const { withRetry, events } = useRetry();
    const target = failing([unreachable(), unreachable()]);
    expect(await withRetry('reading the endpoint list', target.call)).toBe('ok');
    expect(target.calls()).toBe(3);
    expect(events).toHaveLength(2);
    expect(events[0]).toMatchObject({ event: 'log', level: 'warn', message: expect.stringContaining('retry 1 of 2') });
  });

  it('gives up after its retries with the code kept and a hint on what happens next', async () => {
    const { withRetry } = useRetry();
    const target = failing([unreachable(), unreachable(), unreachable()]);
    await expect(withRetry('reading the endpoint list', target.call)).rejects.toMatchObject({
      code: 'median_unreachable',
      hint: expect.stringContaining('median-dev sync'),
    });
    expect(target.calls()).toBe(3);
  });

  it('waits out rate limiting, and gives up at once when Median asks for longer than it waits in place', async () => {
    const { withRetry } = useRetry();
    expect(await withRetry('syncing', failing([rateLimited()]).call)).toBe('ok');
    const tooLong = failing([rateLimited(3_600)]);
    await expect(withRetry('syncing', tooLong.call)).rejects.toMatchObject({ code: 'rate_limited', hint: expect.stringContaining('too long to wait') });
    expect(tooLong.calls()).toBe(1);
  });

  it('passes any other error through untouched, without a retry', async () => {
    const { withRetry, events } = useRetry();
    const refused = new MedianDevError('invalid_api_key', 'The key is not valid.');
    const target = failing([refused]);
    await expect(withRetry('syncing', target.call)).rejects.toBe(refused);
    expect(target.calls()).toBe(1);
    expect(events).toEqual([]);
  });
});
