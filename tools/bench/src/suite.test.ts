import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  type BenchContext,
  compareWithCeiling,
  defineBenchmark,
  medianRound,
  referenceFigure,
} from './benchmark.js';
import { formatTable, writeResults } from './report.js';
import { discoverBenchmarks, runSuite, selectBenchmarks, suitePassed } from './suite.js';

const scratch = mkdtempSync(join(tmpdir(), 'bench-suite-test-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const logs: string[] = [];
const ctx: BenchContext = {
  durationSec: 1,
  warmupSec: 0,
  connections: 1,
  log: (message) => logs.push(message),
};

describe('compareWithCeiling', () => {
  it('divides value by ceiling for throughput and ceiling by value for costs', () => {
    const common = { name: 'x', unit: 'u', ceilingName: 'c' };
    const throughput = compareWithCeiling({ ...common, value: 80, ceiling: 100, target: 0.8 });
    const slower = compareWithCeiling({ ...common, value: 79, ceiling: 100, target: 0.8 });
    const latency = compareWithCeiling({
      ...common,
      value: 4,
      ceiling: 1,
      target: 0.5,
      higherIsBetter: false,
    });

    expect(throughput).toMatchObject({ ratio: 0.8, pass: true });
    expect(slower).toMatchObject({ ratio: 0.79, pass: false });
    expect(latency).toMatchObject({ ratio: 0.25, pass: false });
    expect(compareWithCeiling({ ...common, value: 1, ceiling: 0, target: 0.8 }).pass).toBe(false);
  });
});

describe('medianRound', () => {
  const round = (value: number, ceiling: number) =>
    compareWithCeiling({ name: 'x', unit: 'u', ceilingName: 'c', value, ceiling, target: 1 });

  it('reports the round of the median ratio with every round beside it, in order', () => {
    const median = medianRound([round(90, 100), round(50, 100), round(120, 100)]);

    expect(median).toMatchObject({ value: 90, ceiling: 100, ratio: 0.9, pass: false });
    expect(median.rounds).toEqual([0.9, 0.5, 1.2]);
    expect(formatTable({ figures: [median], errors: [] })).toContain(
      '0.900 (median of 0.900, 0.500, 1.200)',
    );
  });

  it('refuses an even or empty number of rounds', () => {
    expect(() => medianRound([])).toThrow(/odd/);
    expect(() => medianRound([round(1, 1), round(2, 1)])).toThrow(/odd/);
  });
});

describe('figures with an absolute target and reference figures', () => {
  const common = { name: 'x', unit: 'ops/s', ceilingName: 'bare' };

  it('checks a value target against the value, and still reports the ratio', () => {
    const met = compareWithCeiling({
      ...common,
      value: 5_000,
      ceiling: 40_000,
      target: 5_000,
      targetOf: 'value',
    });
    const missed = compareWithCeiling({
      ...common,
      value: 4_999,
      ceiling: 4_999,
      target: 5_000,
      targetOf: 'value',
    });

    expect(met).toMatchObject({ ratio: 0.125, pass: true, targetOf: 'value' });
    expect(missed).toMatchObject({ ratio: 1, pass: false });
  });

  it('checks a max target (a cost with an absolute bound) as value <= target', () => {
    const latency = { ...common, unit: 'ms', ceiling: 40, target: 50, higherIsBetter: false };
    const met = compareWithCeiling({ ...latency, value: 50, targetOf: 'max' });
    const missed = compareWithCeiling({ ...latency, value: 51, targetOf: 'max' });
    expect(met).toMatchObject({ ratio: 0.8, pass: true, targetOf: 'max' });
    expect(missed.pass).toBe(false);
  });

  it('always passes a reference figure, which is its own ceiling', () => {
    expect(referenceFigure({ name: 'disk', value: 2_500, unit: 'batches/s' })).toEqual({
      name: 'disk',
      value: 2_500,
      unit: 'batches/s',
      ceiling: 2_500,
      ceilingName: 'itself (reference)',
      ratio: 1,
      target: 0,
      targetOf: 'none',
      pass: true,
    });
  });

  it('prints the target of each kind in the table', () => {
    const table = formatTable({
      figures: [
        compareWithCeiling({
          ...common,
          value: 4_000,
          ceiling: 8_000,
          target: 5_000,
          targetOf: 'value',
        }),
        referenceFigure({ name: 'disk', value: 2_500, unit: 'batches/s' }),
        compareWithCeiling({ ...common, name: 'y', value: 90, ceiling: 100, target: 0.85 }),
      ],
      errors: [],
    });

    expect(table).toMatch(
      /x\s+4,000 ops\/s\s+8,000 ops\/s \(bare\)\s+0\.500\s+>= 5,000 ops\/s\s+FAIL/,
    );
    expect(table).toMatch(
      /disk\s+2,500 batches\/s\s+2,500 batches\/s \(itself \(reference\)\)\s+-\s+reference\s+pass/,
    );
    expect(table).toMatch(/y\s+90\.0 ops\/s\s+100 ops\/s \(bare\)\s+0\.900\s+>= 0\.850\s+pass/);
  });
});

describe('selectBenchmarks', () => {
  const make = (name: string, optIn?: boolean) =>
    defineBenchmark({ name, ...(optIn ? { optIn } : {}), run: async () => [] });
  const all = [make('a'), make('long', true), make('b')];

  it('runs every benchmark but the opt-in ones by default, and exactly those named by --only', () => {
    expect(selectBenchmarks(all).map((b) => b.name)).toEqual(['a', 'b']);
    expect(selectBenchmarks(all, ['long', 'a']).map((b) => b.name)).toEqual(['a', 'long']);
  });

  it('runs a benchmark beside a peer only when --peer names the peer or --only names it', () => {
    const peer = defineBenchmark({ name: 'peer-x', peer: 'x', run: async () => [] });
    const withPeer = [...all, peer];
    expect(selectBenchmarks(withPeer).map((b) => b.name)).toEqual(['a', 'b']);
    expect(selectBenchmarks(withPeer, undefined, ['y']).map((b) => b.name)).toEqual(['a', 'b']);
    expect(selectBenchmarks(withPeer, undefined, ['x']).map((b) => b.name)).toEqual([
      'a',
      'b',
      'peer-x',
    ]);
    expect(selectBenchmarks(withPeer, ['a'], ['x']).map((b) => b.name)).toEqual(['a', 'peer-x']);
    expect(selectBenchmarks(withPeer, ['peer-x']).map((b) => b.name)).toEqual(['peer-x']);
  });
});

describe('discoverBenchmarks', () => {
  it('loads the default export of every benchmark file, by file name, skipping tests', async () => {
    const dir = join(scratch, 'found');
    const benchmarkFile = (name: string) =>
      `export default { name: '${name}', async run() { return []; } };\n`;
    rmSync(dir, { recursive: true, force: true });
    for (const [file, text] of [
      ['b-second.ts', benchmarkFile('second')],
      ['a-first.ts', benchmarkFile('first')],
      ['a-first.test.ts', 'throw new Error("a test file must not be loaded");\n'],
      ['notes.md', '# not code\n'],
    ]) {
      writeFileSync(join(await ensureDir(dir), file), text);
    }

    const benchmarks = await discoverBenchmarks(dir);

    expect(benchmarks.map((benchmark) => benchmark.name)).toEqual(['first', 'second']);
  });

  it('refuses a file without a benchmark default export', async () => {
    const dir = await ensureDir(join(scratch, 'bad'));
    writeFileSync(join(dir, 'nothing.ts'), 'export const name = "nothing";\n');

    await expect(discoverBenchmarks(dir)).rejects.toThrow(
      'nothing.ts must default-export defineBenchmark',
    );
  });

  it('finds the shipped benchmarks', async () => {
    const benchmarks = await discoverBenchmarks(join(import.meta.dirname, 'benchmarks'));

    expect(benchmarks.map((benchmark) => benchmark.name)).toEqual([
      'block-import',
      'block-production',
      'block-propagation',
      'burst',
      'execute-raw-throughput',
      'history-index',
      'keystore-operations',
      'keystore-scale',
      'leveldb-write',
      'memory',
      'network-cpu',
      'p2p-sync',
      'peer-anvil',
      'push',
      'rpc-reads',
      'rpc-throughput',
      'sendto-throughput',
      'snap-join',
      'state-grown',
      'state-scale',
      'token-throughput',
    ]);
    expect(benchmarks.filter((b) => b.optIn === true).map((b) => b.name)).toEqual([
      'history-index',
      'keystore-operations',
      'keystore-scale',
      'memory',
      'network-cpu',
      'snap-join',
      'state-grown',
      'state-scale',
    ]);
    expect(benchmarks.filter((b) => b.peer === 'anvil').map((b) => b.name)).toEqual(['peer-anvil']);
  });
});

describe('runSuite and the report', () => {
  it('runs every benchmark in order, records a failure and goes on', async () => {
    const order: string[] = [];
    const figure = (name: string, value: number) =>
      compareWithCeiling({
        name,
        value,
        unit: 'calls/s',
        ceiling: 1000,
        ceilingName: 'bare',
        target: 0.8,
      });
    const benchmarks = [
      defineBenchmark({
        name: 'fast',
        async run() {
          order.push('fast');
          return [figure('fast figure', 900)];
        },
      }),
      defineBenchmark({
        name: 'broken',
        async run() {
          order.push('broken');
          throw new Error('the node did not start');
        },
      }),
      defineBenchmark({
        name: 'slow',
        async run() {
          order.push('slow');
          return [figure('slow figure', 500)];
        },
      }),
    ];

    const result = await runSuite(benchmarks, ctx);

    expect(order).toEqual(['fast', 'broken', 'slow']);
    expect(result.figures.map((f) => [f.name, f.pass])).toEqual([
      ['fast figure', true],
      ['slow figure', false],
    ]);
    expect(result.errors).toEqual([{ benchmark: 'broken', error: 'the node did not start' }]);
    expect(suitePassed(result)).toBe(false);
    expect(suitePassed({ figures: [result.figures[0]], errors: [] })).toBe(true);

    const table = formatTable(result);
    expect(table).toMatch(
      /fast figure\s+900 calls\/s\s+1,000 calls\/s \(bare\)\s+0\.900\s+>= 0\.800\s+pass/,
    );
    expect(table).toMatch(/slow figure .* FAIL/);
    expect(table).toContain('ERROR broken: the node did not start');

    const file = join(scratch, 'out', 'results.json');
    await writeResults(file, result, { durationSec: 1, warmupSec: 0, connections: 1 }, false);
    const written = JSON.parse(readFileSync(file, 'utf8'));
    expect(written.pass).toBe(false);
    expect(written.figures[0]).toEqual({
      name: 'fast figure',
      value: 900,
      unit: 'calls/s',
      ceiling: 1000,
      ceilingName: 'bare',
      ratio: 0.9,
      target: 0.8,
      pass: true,
    });
    expect(written.errors).toEqual(result.errors);
    expect(written.settings).toEqual({ durationSec: 1, warmupSec: 0, connections: 1 });
  });
});

async function ensureDir(dir: string): Promise<string> {
  const { mkdir } = await import('node:fs/promises');
  await mkdir(dir, { recursive: true });
  return dir;
}
