import { describe, expect, it } from 'vitest';
import { createAttemptLimiter } from './attempt-limiter';

function limiterWithClock(maxFailures: number, windowMs: number) {
  let time = 1_000;
  const limiter = createAttemptLimiter({ maxFailures, windowMs, now: () => time });
  return { limiter, advance: (ms: number) => (time += ms) };
}

describe('createAttemptLimiter', () => {
  it('allows maxFailures failures, then refuses until the oldest leaves the window', () => {
    const { limiter, advance } = limiterWithClock(3, 60_000);
    limiter.recordFailure('a');
    advance(10_000);
    limiter.recordFailure('a');
    expect(limiter.retryAfter('a')).toBe(0);
    advance(10_000);
    limiter.recordFailure('a'); // failures at t=0, 10 s, 20 s
    expect(limiter.retryAfter('a')).toBe(40_000);
    advance(39_999);
    expect(limiter.retryAfter('a')).toBe(1);
    advance(1); // the failure at t=0 is now 60 s old
    expect(limiter.retryAfter('a')).toBe(0);
    limiter.recordFailure('a'); // failures at 10 s, 20 s, 60 s
    expect(limiter.retryAfter('a')).toBe(10_000);
  });

  it('keeps keys apart', () => {
    const { limiter } = limiterWithClock(1, 60_000);
    limiter.recordFailure('a');
    expect(limiter.retryAfter('a')).toBeGreaterThan(0);
    expect(limiter.retryAfter('b')).toBe(0);
  });

  it('forgets a key on reset and everything on clear', () => {
    const { limiter } = limiterWithClock(1, 60_000);
    limiter.recordFailure('a');
    limiter.recordFailure('b');
    limiter.reset('a');
    expect(limiter.retryAfter('a')).toBe(0);
    expect(limiter.retryAfter('b')).toBeGreaterThan(0);
    limiter.clear();
    expect(limiter.retryAfter('b')).toBe(0);
  });
});
