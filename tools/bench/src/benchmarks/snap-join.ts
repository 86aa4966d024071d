/**
 * Joining by snapshot (issue 31): a fresh `chain-node start --sync snap` joins a chain of 2M
 * accounts and 2M operations of history from one peer on loopback, then a fresh `--sync full` node
 * joins the same chain from the same peer, one after the other in the same run. Each is timed from
 * its spawn to serving reads at the tip: its getBlockCount equals the source's and getWalletInfo of
 * an account the chain created (picked at random) answers the source's balance. The snap join must
 * be at least 10 times faster than the full one (the figure: full seconds / snap seconds).
 *
 * The snap join is also cut into its parts from the joiner's blockSyncing, polled while it joins
 * (joinParts): start-up, manifest (the peer gathering, the source's pass over its state for the
 * manifest), headers and block, chunks, check and write (Chain.adoptSnapshot), the blocks after.
 * The chain is made in-process and cached (snap-chain.ts); the source serves a copy of it without
 * producing (`--no-mine`), so the snapshot it serves is its head. A serving node takes its snapshot
 * once and keeps it on disk (a restart serves it again): the joiners start once the source's is
 * ready, as they would meet any node that has served before; the time it took is printed beside.
 *
 * Opt-in (`--only snap-join`): the first run builds the chain (minutes at 2M). BENCH_SNAP_ACCOUNTS
 * sets the size (e.g. 200000 to try the machinery), BENCH_FIXTURE_DIR where chains are cached.
 */
import { rm } from 'node:fs/promises';
import type { BlockSync } from '@chain/rpc-client';
import {
  type BenchContext,
  compareWithCeiling,
  defineBenchmark,
  type Figure,
  referenceFigure,
} from '../benchmark.js';
import { createNodeProcess, type NodeProcess } from '../node-process.js';
import {
  copySnapChain,
  type SnapChain,
  type SnapChainParams,
  snapChain,
  snapChainAddress,
  snapChainAmount,
} from '../snap-chain.js';
import { DEFAULT_FIXTURE_ROOT } from '../state-fixture.js';

/** Issue 31: a snap join serves reads at the tip at least 10x sooner than a full sync. */
export const SNAP_RATIO_TARGET = 10;

export interface SnapJoinScale extends SnapChainParams {
  /** `--snap-distance` of the snap joiner: far below the chain's height. */
  snapDistance: number;
  /** Longest a join may take (the full sync of 2M operations takes minutes on a busy machine). */
  timeoutMs: number;
  fixtureRoot: string;
}

export const ISSUE_SCALE: SnapJoinScale = {
  accounts: 2_000_000,
  perBlock: 5_000,
  senders: 1_000,
  snapDistance: 10,
  timeoutMs: 30 * 60_000,
  fixtureRoot: DEFAULT_FIXTURE_ROOT,
};

const POLL_MS = 50;
/** Longest the source may take to have its snapshot ready (a pass over 2M accounts: seconds). */
const SOURCE_SNAPSHOT_MS = 5 * 60_000;
const NODE_ARGS = ['--no-mine', '--p2p-host', '127.0.0.1', '--log-level', 'warn'];

/** What a poll of the joiner saw, `at` ms after its spawn. */
export interface JoinSample {
  at: number;
  /** getBlockCount; undefined before the RPC answers. */
  blockCount?: number;
  syncing?: Pick<BlockSync, 'historyStart' | 'snapshot'>;
}

/** Milliseconds from the joiner's spawn to each moment of a snapshot join (undefined: not seen). */
export interface JoinMoments {
  /** The RPC answers. */
  ready?: number;
  /** A snapshot join is under way (a manifest was chosen). */
  manifest?: number;
  /** The first chunk is in (the headers and the block came before it). */
  firstChunk?: number;
  /** Every chunk is in: the chain checks and writes the snapshot (adoptSnapshot). */
  chunks?: number;
  /** The snapshot is adopted: the head is its block, history starts there. */
  adopted?: number;
}

/** The first time each moment of a snapshot join shows in the samples (in time order). */
export function joinMoments(samples: readonly JoinSample[]): JoinMoments {
  const moments: JoinMoments = {};
  for (const { at, blockCount, syncing } of samples) {
    if (blockCount !== undefined) moments.ready ??= at;
    const snapshot = syncing?.snapshot;
    if (snapshot != null) {
      moments.manifest ??= at;
      if (snapshot.chunksDone > 0) moments.firstChunk ??= at;
      if (snapshot.chunksDone === snapshot.chunks) moments.chunks ??= at;
    }
    if (syncing !== undefined && syncing.historyStart > 0 && snapshot == null) {
      moments.adopted ??= at;
    }
  }
  return moments;
}

/** A part of a join and its milliseconds. */
export interface JoinPart {
  part: string;
  ms: number;
}

/**
 * The snap join's parts between its moments and `tipMs` (reads served at the tip). A moment no
 * poll saw (a part shorter than a poll) folds its part into the next one.
 */
export function joinParts(moments: JoinMoments, tipMs: number): JoinPart[] {
  const marks: Array<[string, number | undefined]> = [
    ['start-up (process start to RPC answering)', moments.ready],
    ['manifest (peer gathering, the manifest request)', moments.manifest],
    ['headers, block and the first chunk', moments.firstChunk],
    ['the other chunks', moments.chunks],
    ['check and write (adoptSnapshot)', moments.adopted],
    ['the blocks after the snapshot, first reads', tipMs],
  ];
  const parts: JoinPart[] = [];
  let from = 0;
  let pending = '';
  for (const [part, at] of marks) {
    const name = pending === '' ? part : `${pending}; ${part}`;
    if (at === undefined) {
      pending = name;
      continue;
    }
    parts.push({ part: name, ms: Math.max(0, at - from) });
    from = at;
    pending = '';
  }
  return parts;
}

/**
 * `snap`: `--sync snap` at the scale's `--snap-distance` (far below the chain's height); `full`:
 * `--sync full`; `defaults`: no join flag at all, the node choosing by itself (issue 42: by the
 * work; BENCH_SNAP_DEFAULTS_ARGS adds flags to it, e.g. `--snap-operations 999999999` for the
 * choice by blocks alone, as before).
 */
export type JoinMode = 'snap' | 'full' | 'defaults';

export interface JoinRun {
  mode: JoinMode;
  /** From spawn to reads served at the tip. */
  seconds: number;
  moments: JoinMoments;
  parts: JoinPart[];
}

/** The source's tip and the balance of one of the chain's accounts, as reads at the tip answer. */
interface Probe {
  blockCount: number;
  wallet: string;
  balance: string;
}

/** Spawns a joiner of `source` and polls it until it serves reads at the tip. */
async function timeJoin(
  source: NodeProcess,
  probe: Probe,
  mode: JoinMode,
  scale: SnapJoinScale,
  log: (message: string) => void,
): Promise<JoinRun> {
  const joinArgs =
    mode === 'defaults'
      ? (process.env.BENCH_SNAP_DEFAULTS_ARGS ?? '').split(' ').filter(Boolean)
      : ['--sync', mode, '--snap-distance', String(scale.snapDistance)];
  const joiner = createNodeProcess({
    args: [...NODE_ARGS, ...joinArgs, '--peers', `127.0.0.1:${source.p2pPort}`],
    readyTimeoutMs: 60_000,
  });
  const spawned = performance.now();
  const since = () => performance.now() - spawned;
  const samples: JoinSample[] = [];
  try {
    await joiner.start();
    let nextReport = performance.now() + 15_000;
    for (;;) {
      const at = since();
      const [blockCount, syncing] = await Promise.all([
        joiner.client.block.getBlockCount(),
        joiner.client.block.blockSyncing(),
      ]);
      samples.push({ at, blockCount, syncing });
      if (
        blockCount === probe.blockCount &&
        (await balanceOf(joiner, probe.wallet)) === probe.balance
      ) {
        const tipMs = since();
        const moments = joinMoments(samples);
        return {
          mode,
          seconds: tipMs / 1000,
          moments,
          parts: mode === 'full' ? [] : joinParts(moments, tipMs),
        };
      }
      if (at > scale.timeoutMs) {
        throw new Error(
          `--sync ${mode}: at block ${blockCount - 1} of ${probe.blockCount - 1} after ${scale.timeoutMs} ms`,
        );
      }
      if (performance.now() >= nextReport) {
        const snap = syncing.snapshot;
        log(
          `  --sync ${mode}: block ${blockCount - 1} of ${probe.blockCount - 1} after ${(at / 1000).toFixed(0)} s` +
            (snap == null ? '' : `, snapshot chunks ${snap.chunksDone} of ${snap.chunks}`),
        );
        nextReport = performance.now() + 15_000;
      }
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
  } catch (error) {
    throw new Error(
      `${(error as Error).message}\n--- joiner output (last lines) ---\n${joiner.output().split('\n').slice(-30).join('\n')}`,
    );
  } finally {
    await joiner.close();
  }
}

/** The balance getWalletInfo answers, undefined while the account is not there. */
async function balanceOf(node: NodeProcess, wallet: string): Promise<string | undefined> {
  try {
    return (await node.client.wallet.getWalletInfo({ wallet })).balance;
  } catch {
    return undefined;
  }
}

const count = (n: number) => n.toLocaleString('en-US');

/** The figures of the two joins. */
export function snapJoinFigures(chain: SnapChain, snap: JoinRun, full: JoinRun): Figure[] {
  const of = `a chain of ${count(chain.accounts)} accounts and ${count(chain.operations)} operations, one peer on loopback`;
  return [
    compareWithCeiling({
      name: `snap join to reads at the tip, ${of}`,
      value: snap.seconds,
      unit: 's',
      ceiling: full.seconds,
      ceilingName: '--sync full of the same chain, same run',
      target: SNAP_RATIO_TARGET,
      higherIsBetter: false,
    }),
    referenceFigure({
      name: `--sync full to reads at the tip, ${of}`,
      value: full.seconds,
      unit: 's',
    }),
    ...snap.parts.map((part) =>
      referenceFigure({ name: `snap join: ${part.part}`, value: part.ms / 1000, unit: 's' }),
    ),
  ];
}

export async function measureSnapJoin(ctx: BenchContext, scale: SnapJoinScale): Promise<Figure[]> {
  ctx.log(
    `  chain: ${count(scale.accounts)} new accounts by transfers, ${count(scale.perBlock)} a block, from ${count(scale.senders)} senders (${scale.fixtureRoot})`,
  );
  const chain = await snapChain(scale, ctx.log, scale.fixtureRoot);
  ctx.log(
    `  chain: ${count(chain.height)} blocks, ${count(chain.operations)} operations, database ${Math.round(chain.chainBytes / 1024 / 1024)} MB; built in ${chain.buildSeconds.toFixed(0)} s`,
  );
  const datadir = await copySnapChain(chain);
  const source = createNodeProcess({
    datadir,
    args: [...NODE_ARGS.slice(0, -1), 'warn,p2p=info'],
    readyTimeoutMs: 120_000,
  });
  try {
    const started = performance.now();
    await source.start();
    // A serving node takes its snapshot once (then keeps it on disk): the joiners meet it ready.
    await waitFor(() => source.output().includes('snapshot ready to serve'), SOURCE_SNAPSHOT_MS);
    const snapshotSeconds = (performance.now() - started) / 1000;
    ctx.log(`  source: snapshot ready to serve ${snapshotSeconds.toFixed(1)} s after its start`);
    const n = Math.floor(Math.random() * chain.accounts);
    const wallet = snapChainAddress(n);
    const blockCount = await source.client.block.getBlockCount();
    const balance = await balanceOf(source, wallet);
    if (balance !== String(snapChainAmount(n))) {
      throw new Error(`the source answers ${balance} for account ${n}, not ${snapChainAmount(n)}`);
    }
    const probe = { blockCount, wallet, balance };
    const runs: JoinRun[] = [];
    for (const mode of ['snap', 'full', 'defaults'] as const) {
      ctx.log(`  --sync ${mode}: joining ${count(blockCount - 1)} blocks from the source`);
      const run = await timeJoin(source, probe, mode, scale, ctx.log);
      ctx.log(`  --sync ${mode}: reads at the tip after ${run.seconds.toFixed(2)} s`);
      for (const part of run.parts)
        ctx.log(`    ${(part.ms / 1000).toFixed(2).padStart(8)} s  ${part.part}`);
      runs.push(run);
    }
    const [snap, full, defaults] = runs as [JoinRun, JoinRun, JoinRun];
    ctx.log(
      `  full / snap: ${(full.seconds / snap.seconds).toFixed(1)} (target >= ${SNAP_RATIO_TARGET})`,
    );
    const how = defaults.moments.manifest === undefined ? 'replayed' : 'by snapshot';
    ctx.log(
      `  on the defaults: ${how}, ${defaults.seconds.toFixed(2)} s; full / defaults: ${(full.seconds / defaults.seconds).toFixed(1)}`,
    );
    return [
      ...snapJoinFigures(chain, snap, full),
      referenceFigure({
        name: `join on the defaults (${how}${process.env.BENCH_SNAP_DEFAULTS_ARGS ? `, ${process.env.BENCH_SNAP_DEFAULTS_ARGS}` : ''}) to reads at the tip`,
        value: defaults.seconds,
        unit: 's',
      }),
      referenceFigure({
        name: 'snap join: the source takes its snapshot (once, before any joiner)',
        value: snapshotSeconds,
        unit: 's',
      }),
    ];
  } finally {
    await source.close();
    await rm(datadir, { recursive: true, force: true });
  }
}

async function waitFor(done: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

/** The issue's scale, the chain's size and the cache taken from the environment. */
export function scaleFromEnvironment(env: NodeJS.ProcessEnv = process.env): SnapJoinScale {
  const accounts =
    env.BENCH_SNAP_ACCOUNTS === undefined ? ISSUE_SCALE.accounts : Number(env.BENCH_SNAP_ACCOUNTS);
  // At least a block of transfers beyond the snap distance, so that the snap joiner joins by snapshot.
  const least = ISSUE_SCALE.perBlock * (ISSUE_SCALE.snapDistance + 1);
  if (!Number.isInteger(accounts) || accounts < least) {
    throw new Error(
      `BENCH_SNAP_ACCOUNTS must be an integer of at least ${least}, got ${env.BENCH_SNAP_ACCOUNTS}`,
    );
  }
  return {
    ...ISSUE_SCALE,
    accounts,
    fixtureRoot: env.BENCH_FIXTURE_DIR ?? ISSUE_SCALE.fixtureRoot,
  };
}

export default defineBenchmark({
  name: 'snap-join',
  description: `a fresh node joining a chain of ${count(ISSUE_SCALE.accounts)} accounts and operations from one peer: --sync snap vs --sync full, to reads at the tip`,
  optIn: true,
  run: (ctx) => measureSnapJoin(ctx, scaleFromEnvironment()),
});
