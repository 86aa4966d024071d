/**
 * What a benchmark is. Adding one is adding one file to src/benchmarks/ whose default export is
 * `defineBenchmark({ name, run(ctx) })`; run.ts finds it.
 */

export interface BenchContext {
  /** Measured seconds per load run (`--duration`). */
  durationSec: number;
  /**
   * True when `--duration` was given; a benchmark with its own default duration (sendto-throughput)
   * uses `durationSec` only then.
   */
  durationGiven?: boolean;
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
  /** What the figure must reach: a ratio, or a value in `unit` (see `targetOf`). */
  target: number;
  /**
   * Absent: `target` is the least ratio. 'value': it is the least value itself (an absolute target
   * such as 5,000 operations/s; the ceiling is still reported beside it). 'none': a reference figure
   * with no target, reported for comparison (it always passes). 'max': the most value allowed (a
   * cost with an absolute bound, such as a p99 latency under 50 ms).
   */
  targetOf?: 'value' | 'none' | 'max';
  pass: boolean;
  /** Latency of the measured runs, when the figure is a throughput under load. */
  latency?: { p50Ms: number; p99Ms: number; ceilingP50Ms: number; ceilingP99Ms: number };
  /**
   * The ratio of each round, in order, when the figure is the median of repeated rounds (a peer
   * whose own rate moves several-fold between runs): value, ceiling and ratio are the median round's.
   */
  rounds?: number[];
}

export interface Benchmark {
  /** Unique, kebab-case; what `--only` selects. */
  name: string;
  description?: string;
  /** Runs only when named by `--only` (it takes too long for the default run). */
  optIn?: boolean;
  /**
   * The peer node it runs beside chain-node (`anvil`): it runs only when `--peer` names that peer
   * (added to the run's other benchmarks) or `--only` names the benchmark.
   */
  peer?: string;
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
  /** Default: the target bounds the ratio. */
  targetOf?: Figure['targetOf'];
  /** Default true (throughput); false for costs such as latency or bytes. */
  higherIsBetter?: boolean;
  latency?: Figure['latency'];
}): Figure {
  const { higherIsBetter = true, latency, targetOf, ...figure } = input;
  const ratio = higherIsBetter ? figure.value / figure.ceiling : figure.ceiling / figure.value;
  let pass: boolean;
  if (targetOf === 'none') pass = true;
  else if (targetOf === 'value')
    pass = Number.isFinite(figure.value) && figure.value >= figure.target;
  else if (targetOf === 'max')
    pass = Number.isFinite(figure.value) && figure.value <= figure.target;
  else pass = Number.isFinite(ratio) && ratio >= figure.target;
  const result: Figure = { ...figure, ratio, pass };
  if (targetOf !== undefined) result.targetOf = targetOf;
  if (latency !== undefined) result.latency = latency;
  return result;
}

/** A reference figure: a rate of this machine reported for comparison, with no target. */
export function referenceFigure(input: { name: string; value: number; unit: string }): Figure {
  return compareWithCeiling({
    ...input,
    ceiling: input.value,
    ceilingName: 'itself (reference)',
    target: 0,
    targetOf: 'none',
  });
}

/**
 * The round whose ratio is the median of `rounds` (an odd count), carrying every round's ratio:
 * one round of a peer that swings several-fold between runs decides nothing on its own.
 */
export function medianRound(rounds: readonly Figure[]): Figure {
  if (rounds.length === 0 || rounds.length % 2 === 0) {
    throw new Error(`a median round needs an odd number of rounds, got ${rounds.length}`);
  }
  const byRatio = [...rounds].sort((a, b) => a.ratio - b.ratio);
  const median = byRatio[(byRatio.length - 1) / 2]!;
  return { ...median, rounds: rounds.map((round) => round.ratio) };
}
