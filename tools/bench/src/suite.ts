import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { type BenchContext, type Benchmark, type Figure, isBenchmark } from './benchmark.js';

/** Every benchmark of `dir`: the default export of each `*.ts` file (tests excluded), by file name. */
export async function discoverBenchmarks(dir: string): Promise<Benchmark[]> {
  const files = (await readdir(dir))
    .filter((file) => file.endsWith('.ts') && !file.endsWith('.test.ts') && !file.endsWith('.d.ts'))
    .sort();
  const benchmarks: Benchmark[] = [];
  for (const file of files) {
    const module = (await import(pathToFileURL(join(dir, file)).href)) as { default?: unknown };
    if (!isBenchmark(module.default)) {
      throw new Error(`${file} must default-export defineBenchmark({ name, run(ctx) })`);
    }
    benchmarks.push(module.default);
  }
  const names = benchmarks.map((benchmark) => benchmark.name);
  const duplicate = names.find((name, index) => names.indexOf(name) !== index);
  if (duplicate !== undefined) throw new Error(`two benchmarks are named ${duplicate}`);
  return benchmarks;
}

/**
 * The benchmarks a run does: those `only` names (in discovery order), or without `only` every one
 * that is neither opt-in nor beside a peer; in both cases, those beside a peer `peers` names.
 */
export function selectBenchmarks(
  all: readonly Benchmark[],
  only?: readonly string[],
  peers: readonly string[] = [],
): Benchmark[] {
  const withPeer = (benchmark: Benchmark) =>
    benchmark.peer !== undefined && peers.includes(benchmark.peer);
  if (only === undefined) {
    return all.filter(
      (benchmark) =>
        (benchmark.optIn !== true && benchmark.peer === undefined) || withPeer(benchmark),
    );
  }
  return all.filter((benchmark) => only.includes(benchmark.name) || withPeer(benchmark));
}

export interface SuiteResult {
  figures: Figure[];
  /** Benchmarks that threw instead of producing figures. */
  errors: Array<{ benchmark: string; error: string }>;
}

/** Runs the benchmarks one after another; one that throws is recorded and the others still run. */
export async function runSuite(benchmarks: Benchmark[], ctx: BenchContext): Promise<SuiteResult> {
  const result: SuiteResult = { figures: [], errors: [] };
  for (const benchmark of benchmarks) {
    ctx.log(`▶ ${benchmark.name}${benchmark.description ? `: ${benchmark.description}` : ''}`);
    try {
      result.figures.push(...(await benchmark.run(ctx)));
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      ctx.log(`✖ ${benchmark.name} failed: ${message}`);
      result.errors.push({ benchmark: benchmark.name, error: message });
    }
  }
  return result;
}

/** A run passes when no benchmark threw and every figure reached its target. */
export function suitePassed(result: SuiteResult): boolean {
  return result.errors.length === 0 && result.figures.every((figure) => figure.pass);
}
