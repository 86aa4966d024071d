/**
 * What a benchmark is. Adding one is adding one file to src/benchmarks/ whose default export is
 * `defineBenchmark({ name, run(ctx) })`; run.ts finds it.
 */

export interface BenchContext {
  /** Measured seconds per load run (`--duration`). */
  durationSec: number;
  /** Seconds of unmeasured warm-up before each load run. */
  warmupSec: number;
  /** Concurrent keep-alive connections per load run (`--connections`). */
  connections: number;
  /** Progress output (stderr), one line per call. */
  log(message: string): void;
}

/**
 * One reported figure, always beside its ceiling: the best this machine does for the same work
 * without chain-node's code, measured in the same run.
 */
export interface Figure {
  name: string;
  value: number;
  unit: string;
  ceiling: number;
  ceilingName: string;
  /** value / ceiling when higher is better; ceiling / value when lower is better. */
  ratio: number;
  /** The ratio the figure must reach. */
  target: number;
  pass: boolean;
  /** Latency of the measured runs, when the figure is a throughput under load. */
  latency?: { p50Ms: number; p99Ms: number; ceilingP50Ms: number; ceilingP99Ms: number };
}

export interface Benchmark {
  /** Unique, kebab-case; what `--only` selects. */
  name: string;
  description?: string;
  run(ctx: BenchContext): Promise<Figure[]>;
}

export function defineBenchmark(benchmark: Benchmark): Benchmark {
  return benchmark;
}

export function isBenchmark(value: unknown): value is Benchmark {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as Benchmark).name === 'string' &&
    typeof (value as Benchmark).run === 'function'
  );
}

/** A figure compared with its ceiling. */
export function compareWithCeiling(input: {
  name: string;
  value: number;
  unit: string;
  ceiling: number;
  ceilingName: string;
  target: number;
  /** Default true (throughput); false for costs such as latency or bytes. */
  higherIsBetter?: boolean;
  latency?: Figure['latency'];
}): Figure {
  const { higherIsBetter = true, latency, ...figure } = input;
  const ratio = higherIsBetter ? figure.value / figure.ceiling : figure.ceiling / figure.value;
  const result: Figure = {
    ...figure,
    ratio,
    pass: Number.isFinite(ratio) && ratio >= figure.target,
  };
  if (latency !== undefined) result.latency = latency;
  return result;
}
