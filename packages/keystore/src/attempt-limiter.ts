export interface AttemptLimiterOptions {
  /** Failures allowed per key within one window. */
  maxFailures: number;
  windowMs: number;
  /** Milliseconds from a monotonic clock. */
  now?: () => number;
}

export interface AttemptLimiter {
  /** Milliseconds until `key` may try again, 0 when it may try now. */
  retryAfter(key: string): number;
  recordFailure(key: string): void;
  /** Forgets `key`'s failures (after a success: only the passphrase's owner can produce one). */
  reset(key: string): void;
  clear(): void;
}

/**
 * Sliding-window limit on failed attempts per key: once `maxFailures` failures fall within the
 * last `windowMs`, every attempt fails fast until the oldest of them leaves the window.
 */
export function createAttemptLimiter(options: AttemptLimiterOptions): AttemptLimiter {
  const { maxFailures, windowMs } = options;
  const now = options.now ?? (() => performance.now());
  const failures = new Map<string, number[]>();

  function recent(key: string): number[] {
    const times = failures.get(key);
    if (times === undefined) return [];
    const cutoff = now() - windowMs;
    while (times.length > 0 && times[0]! <= cutoff) times.shift();
    if (times.length === 0) failures.delete(key);
    return times;
  }

  return {
    retryAfter(key) {
      const times = recent(key);
      if (times.length < maxFailures) return 0;
      return Math.max(1, Math.ceil(times[times.length - maxFailures]! + windowMs - now()));
    },
    recordFailure(key) {
      const times = recent(key);
      times.push(now());
      // Only the newest maxFailures matter for the decision; older ones need no memory.
      if (times.length > maxFailures) times.splice(0, times.length - maxFailures);
      failures.set(key, times);
    },
    reset(key) {
      failures.delete(key);
    },
    clear() {
      failures.clear();
    },
  };
}
