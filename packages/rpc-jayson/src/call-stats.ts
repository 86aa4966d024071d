import type { CallStat } from '@chain/spec';

/** Time spent in one method; mutable, one per catalogue method, created at construction. */
export interface MethodCounter {
  readonly method: string;
  calls: number;
  /** Calls answered with an error (coercion or the handler's); `calls` counts them too. */
  errors: number;
  milliseconds: number;
  /** The calls by duration, kept only when the server was given duration buckets (metrics on). */
  readonly durations: DurationBuckets | undefined;
}

/**
 * Calls counted by duration, for a Prometheus histogram read at scrape time: `counts[i]` holds the
 * calls that took at most `upperMs[i]` and more than the bound before it; the last count is the
 * rest (+Inf). Not cumulative (the reader sums), so a call costs one short scan and one increment.
 */
export class DurationBuckets {
  readonly upperMs: Float64Array;
  readonly counts: Float64Array;

  constructor(upperSeconds: readonly number[]) {
    this.upperMs = Float64Array.from(upperSeconds, (seconds) => seconds * 1000);
    this.counts = new Float64Array(upperSeconds.length + 1);
  }

  observe(milliseconds: number): void {
    const upper = this.upperMs;
    let i = 0;
    while (i < upper.length && milliseconds > upper[i]!) i++;
    this.counts[i]!++;
  }
}

function row(method: string, calls: number, milliseconds: number): CallStat {
  const seconds = milliseconds / 1000;
  return {
    method,
    calls,
    seconds: seconds.toFixed(6),
    secs_average: (calls === 0 ? 0 : seconds / calls).toFixed(6),
  };
}

/** rpcCallStats: the methods called at least once, sorted by name, then TOTAL. */
export function callStatsTable(counters: Iterable<MethodCounter>): CallStat[] {
  const called = [...counters].filter((counter) => counter.calls > 0);
  called.sort((a, b) => (a.method < b.method ? -1 : a.method > b.method ? 1 : 0));
  let calls = 0;
  let milliseconds = 0;
  const rows = called.map((counter) => {
    calls += counter.calls;
    milliseconds += counter.milliseconds;
    return row(counter.method, counter.calls, counter.milliseconds);
  });
  rows.push(row('TOTAL', calls, milliseconds));
  return rows;
}
