/**
 * `npm run bench`: runs every benchmark of src/benchmarks/ in sequence, prints a table and writes
 * bench/results.json. Exit code 1 when a benchmark fails or a figure misses its target.
 *
 * Options: --only <name>[,<name>...]  --peer <peer>[,<peer>...]  --duration <s>  --warmup <s>
 *          --connections <n>  --out <file>  --list
 * Benchmarks marked optIn (the long memory run) run only when --only names them; those beside a
 * peer node (peer-anvil) when --peer names the peer (`--peer anvil`) or --only names them.
 */
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { levelDbBuild } from '@chain/ledger';
import type { BenchContext } from './benchmark.js';
import { DEFAULT_LOAD_OPTIONS } from './load.js';
import { formatTable, writeResults } from './report.js';
import { discoverBenchmarks, runSuite, selectBenchmarks, suitePassed } from './suite.js';

const WORKSPACE = resolve(import.meta.dirname, '..', '..', '..');

function positiveNumber(text: string | undefined, fallback: number, option: string): number {
  if (text === undefined) return fallback;
  const value = Number(text);
  if (!Number.isFinite(value) || value < 0) {
    throw new Error(`--${option} must be a non-negative number, got ${JSON.stringify(text)}`);
  }
  return value;
}

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      only: { type: 'string' },
      peer: { type: 'string' },
      duration: { type: 'string' },
      warmup: { type: 'string' },
      connections: { type: 'string' },
      out: { type: 'string' },
      list: { type: 'boolean' },
    },
  });
  const all = await discoverBenchmarks(join(import.meta.dirname, 'benchmarks'));
  if (values.list === true) {
    for (const benchmark of all) {
      const optIn =
        benchmark.peer !== undefined
          ? ` (only with --peer ${benchmark.peer})`
          : benchmark.optIn === true
            ? ' (only with --only)'
            : '';
      console.log(`${benchmark.name}\t${benchmark.description ?? ''}${optIn}`);
    }
    return 0;
  }
  const only = values.only?.split(',').map((name) => name.trim());
  const unknown = only?.filter((name) => !all.some((benchmark) => benchmark.name === name)) ?? [];
  if (unknown.length > 0) {
    console.error(
      `unknown benchmark ${unknown.join(', ')}; known: ${all.map((b) => b.name).join(', ')}`,
    );
    return 2;
  }
  const peers = values.peer?.split(',').map((name) => name.trim()) ?? [];
  const knownPeers = new Set(all.flatMap((benchmark) => benchmark.peer ?? []));
  const unknownPeers = peers.filter((peer) => !knownPeers.has(peer));
  if (unknownPeers.length > 0) {
    console.error(`unknown peer ${unknownPeers.join(', ')}; known: ${[...knownPeers].join(', ')}`);
    return 2;
  }
  const selected = selectBenchmarks(all, only, peers);
  const durationSec = positiveNumber(values.duration, DEFAULT_LOAD_OPTIONS.durationSec, 'duration');
  const ctx: BenchContext = {
    durationSec,
    durationGiven: values.duration !== undefined,
    warmupSec: positiveNumber(
      values.warmup,
      Math.min(DEFAULT_LOAD_OPTIONS.warmupSec, durationSec / 5),
      'warmup',
    ),
    connections: Math.max(
      1,
      Math.round(
        positiveNumber(values.connections, DEFAULT_LOAD_OPTIONS.connections, 'connections'),
      ),
    ),
    log: (message) => console.error(message),
  };

  const leveldb = levelDbBuild();
  if (leveldb.seekCompactions) {
    ctx.log('LevelDB: the prebuilt one, which compacts for reads (npm ci builds the one without)');
  } else if (leveldb.mapsTableFiles) {
    ctx.log('LevelDB: a build that maps its table files (npm ci builds the one without)');
  } else if (!leveldb.freesEmptyValues) {
    ctx.log("LevelDB: a build that loses empty values' copies (npm ci builds the one without)");
  }
  const result = await runSuite(selected, ctx);
  const pass = suitePassed(result);
  const out = resolve(values.out ?? join(WORKSPACE, 'bench', 'results.json'));
  await writeResults(
    out,
    result,
    {
      durationSec: ctx.durationSec,
      warmupSec: ctx.warmupSec,
      connections: ctx.connections,
    },
    pass,
  );
  console.log(`\n${formatTable(result)}\n`);
  console.log(`${pass ? 'PASS' : 'FAIL'}: results written to ${out}`);
  return pass ? 0 : 1;
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exitCode = 2;
  },
);
