import type { CallStat } from '@chain/spec';

/** Time spent in one method; mutable, one per catalogue method, created at construction. */
export interface MethodCounter {
  readonly method: string;
  calls: number;
  milliseconds: number;
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
