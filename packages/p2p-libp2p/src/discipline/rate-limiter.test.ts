import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BAN_SCORE, DECAY_PER_MINUTE, MisbehaviourScores, PENALTY } from './misbehaviour';
import { PeerRateLimiter } from './rate-limiter';

describe('per-IP rate limiter (token buckets)', () => {
  it('allows the burst at once, then one message per 1/perSecond', () => {
    let now = 1_000_000;
    const limiter = new PeerRateLimiter({ hello: { perSecond: 4, burst: 3 } }, () => now);
    expect([1, 2, 3, 4].map(() => limiter.take('10.0.0.1', 'hello'))).toEqual([
      true,
      true,
      true,
      false,
    ]);
    now += 249; // a token takes 250 ms at 4 a second
    expect(limiter.take('10.0.0.1', 'hello')).toBe(false);
    now += 1;
    expect(limiter.take('10.0.0.1', 'hello')).toBe(true);
    expect(limiter.take('10.0.0.1', 'hello')).toBe(false);
    // A long silence refills to the burst, not beyond.
    now += 60_000;
    expect([1, 2, 3, 4].map(() => limiter.take('10.0.0.1', 'hello'))).toEqual([
      true,
      true,
      true,
      false,
    ]);
  });

  it('keeps each IP and each kind apart', () => {
    const limiter = new PeerRateLimiter(
      { hello: { perSecond: 1, burst: 1 }, blockGossip: { perSecond: 1, burst: 1 } },
      () => 0,
    );
    expect(limiter.take('10.0.0.1', 'hello')).toBe(true);
    expect(limiter.take('10.0.0.1', 'hello')).toBe(false);
    expect(limiter.take('10.0.0.1', 'blockGossip')).toBe(true);
    expect(limiter.take('10.0.0.2', 'hello')).toBe(true);
  });

  it('never lets through more than burst + perSecond x elapsed, and refuses none of a paced sender', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 100 }),
        fc.integer({ min: 1, max: 50 }),
        fc.array(fc.integer({ min: 0, max: 400 }), { minLength: 1, maxLength: 300 }),
        (perSecond, burst, gaps) => {
          let now = 0;
          const limiter = new PeerRateLimiter({ m: { perSecond, burst } }, () => now);
          let allowed = 0;
          for (const gap of gaps) {
            now += gap;
            if (limiter.take('ip', 'm')) allowed++;
          }
          expect(allowed).toBeLessThanOrEqual(burst + Math.floor((perSecond * now) / 1000));
          // A sender that waits a full token period between messages is never refused.
          const paced = new PeerRateLimiter({ m: { perSecond, burst } }, () => now);
          for (let i = 0; i < 20; i++) {
            now += Math.ceil(1000 / perSecond);
            expect(paced.take('ip', 'm')).toBe(true);
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('drops idle buckets once it holds many, so a sweep of IPs cannot grow it without bound', () => {
    let now = 0;
    const limiter = new PeerRateLimiter({ m: { perSecond: 10, burst: 5 } }, () => now);
    for (let i = 0; i < 10_000; i++) {
      limiter.take(`10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`, 'm');
      now += 1;
    }
    // Buckets refill in 0.5 s: at most the IPs of the last half second plus one sweep's worth.
    expect(limiter.size).toBeLessThanOrEqual(4096 + 500);
  });
});

describe('misbehaviour scores', () => {
  it('adds whole points: five offences of 20 are exactly the ban score, however quick', () => {
    let now = 0;
    const scores = new MisbehaviourScores(() => now);
    expect(PENALTY.tooManyStreams * 5).toBe(BAN_SCORE);
    for (let i = 1; i <= 5; i++) {
      now += 50;
      expect(scores.add('10.0.0.1', 'tooManyStreams')).toBe(20 * i);
    }
    // Ten floods are a ban too (PENALTY.flood = 10).
    for (let i = 1; i <= 10; i++) expect(scores.add('10.0.0.2', 'flood')).toBe(10 * i);
  });

  it(`fades ${DECAY_PER_MINUTE} points a minute, one at a time, also while offences keep coming`, () => {
    let now = 0;
    const scores = new MisbehaviourScores(() => now);
    scores.add('10.0.0.1', 'oversized'); // 50
    now += 30_000;
    expect(scores.score('10.0.0.1')).toBe(45);
    now += 5_999;
    expect(scores.score('10.0.0.1')).toBe(45);
    now += 1;
    expect(scores.score('10.0.0.1')).toBe(44);
    // An offence every 4 s: the partial fading between them is kept, not lost.
    const other = new MisbehaviourScores(() => now);
    const start = now;
    for (let i = 0; i < 15; i++) {
      other.add('10.0.0.2', 'flood');
      now += 4_000;
    }
    const minutes = (now - start) / 60_000;
    expect(other.score('10.0.0.2')).toBe(150 - Math.floor(minutes * DECAY_PER_MINUTE));
    now += 60 * 60_000;
    expect(other.score('10.0.0.2')).toBe(0);
    expect(other.size).toBe(0);
  });

  it('drops faded scores once it holds many', () => {
    let now = 0;
    const scores = new MisbehaviourScores(() => now);
    for (let i = 0; i < 5000; i++) {
      scores.add(`10.0.${i >> 8}.${i & 255}`, 'flood');
      now += 100; // a flood score (10 points) fades in a minute
    }
    expect(scores.size).toBeLessThanOrEqual(4096);
  });
});
