/**
 * Key store at exchange scale (issue 40): nodes on default flags whose key stores hold 10, 100,000
 * and 1,000,000 wallets (key files in our format at the dev network's scrypt, cached between runs:
 * keystore-fixture.ts), each measured the same way:
 *
 * - the one-time index build (first start on a key directory without an index): its rate in files
 *   per second and the node's peak RSS meanwhile;
 * - start-up to ready once indexed (process start to the first getBlockCount answer), <= 3 s, and
 *   the peak RSS of the start;
 * - each key-store call's median latency (newWallet, unlockWallet, lockWallet, dumpPrivateKey,
 *   signMessage, sendTo from a store wallet, getKeyStoreCount), one call at a time on random
 *   wallets of the store, against the same call on the 10-wallet store: at most 1.2x;
 *   getKeyStoreInfo (max 100, after a random wallet) <= 50 ms;
 * - peak RSS under a mixed load (newWallet, sendTo from store wallets, getKeyStoreInfo pages),
 *   <= 400 MB;
 * - walletRefresh after 1,000 key files are copied in by hand, <= 2 s;
 * - bytes of index per wallet (`<keystore>/.index` on disk / wallets);
 * - a newWallet, then kill -9 at once: the restarted node must hold it (the run fails if not), and
 *   its start-up to ready after the crash.
 *
 * Opt-in (`--only keystore-scale`). BENCH_KEYSTORE_SCALES sets the scales (default
 * 10,100000,1000000; e.g. 10,100000 for a routine run: the million takes minutes to write once and
 * a few more to index); BENCH_FIXTURE_DIR where the fixtures are cached.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { type ChainClient, createClient } from '@chain/rpc-client';
import {
  type BenchContext,
  compareWithCeiling,
  defineBenchmark,
  type Figure,
  referenceFigure,
} from '../benchmark.js';
import { createSenders, randomAddresses, type SenderWallet, sleep } from '../dev-chain.js';
import {
  copyExtraFiles,
  EXTRA_FILES,
  type KeyStoreFixture,
  keyStoreFixture,
  linkKeyStore,
} from '../keystore-fixture.js';
import { FIXTURE_PASSPHRASE } from '../keystore-fixture-format.js';
import { createNodeProcess, type NodeProcess } from '../node-process.js';
import { processCpuSeconds } from '../process-cpu.js';
import { type RssSummary, sampleRss } from '../rss-sampler.js';

/** Issue 40's bounds. */
export const STARTUP_BOUND_SEC = 3;
export const RSS_BOUND_MB = 400;
export const LATENCY_RATIO_BOUND = 1.2;
export const PAGE_BOUND_MS = 50;
export const REFRESH_BOUND_SEC = 2;

const DEFAULT_SCALES = [10, 100_000, 1_000_000];
/** Calls of each kind measured, one at a time (the median is reported). */
const CALLS = 41;
const MIXED_LOAD_SEC = 15;
const SENDERS = 4;
const SAMPLE_MS = 200;
const MB = 1024 * 1024;
const INDEX_BUILD_TIMEOUT_MS = 30 * 60_000;

const CALL_NAMES = [
  'newWallet',
  'unlockWallet',
  'lockWallet',
  'dumpPrivateKey',
  'signMessage',
  'sendTo',
  'getKeyStoreCount',
  'getKeyStoreInfo',
] as const;
type CallName = (typeof CALL_NAMES)[number];

export interface KeyStoreRun {
  wallets: number;
  /** First start: files per second of the index build, and the node's peak RSS meanwhile. */
  buildRate: number;
  buildPeakBytes: number;
  startupSec: number;
  startPeakBytes: number;
  mixedPeakBytes: number;
  /** The largest anonymous (heaps) and file-backed (code, mapped files) parts under that load. */
  mixedAnonBytes: number;
  mixedFileBytes: number;
  /** Median ms of each call. */
  latencyMs: Record<CallName, number>;
  refreshSec: number;
  indexBytesPerWallet: number;
  /** Start-up to ready after the kill -9 that followed a newWallet. */
  crashRestartSec: number;
}

const count = (n: number) => n.toLocaleString('en-US');
const mb = (bytes: number) => Math.round(bytes / MB);

function scalesOf(text: string | undefined): number[] {
  if (text === undefined || text.trim() === '') return DEFAULT_SCALES;
  const scales = text.split(',').map((part) => Number(part.trim()));
  if (scales.some((n) => !Number.isSafeInteger(n) || n < 1)) {
    throw new Error(`BENCH_KEYSTORE_SCALES must list positive integers, got ${text}`);
  }
  return scales;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

async function timedMs(run: () => Promise<unknown>): Promise<number> {
  const startedAt = performance.now();
  await run();
  return performance.now() - startedAt;
}

async function keyStoreStatus(client: ChainClient) {
  const status = (await client.network.nodeStatus()) as unknown as {
    keystore: { wallets: number; indexing: { done: number; total: number } | null };
  };
  return status.keystore;
}

async function waitUntilIndexed(
  ctx: BenchContext,
  node: NodeProcess,
  label: string,
): Promise<void> {
  const deadline = Date.now() + INDEX_BUILD_TIMEOUT_MS;
  let lastLog = 0;
  for (;;) {
    const { indexing } = await keyStoreStatus(node.client);
    if (indexing === null) return;
    if (Date.now() - lastLog > 15_000) {
      ctx.log(`  ${label}: indexing ${count(indexing.done)}/${count(indexing.total)}`);
      lastLog = Date.now();
    }
    if (Date.now() > deadline) throw new Error(`${label}: the index build did not end`);
    await sleep(250);
  }
}

async function indexBytes(keyDir: string): Promise<number> {
  const { stdout } = await promisify(execFile)('du', ['-sb', join(keyDir, '.index')]);
  return Number(stdout.split('\t')[0]);
}

/** Random picks of `from` (with repeats when it holds fewer). */
function pick<T>(from: readonly T[], n: number): T[] {
  return Array.from({ length: n }, () => from[Math.floor(Math.random() * from.length)]!);
}

/** newWallet, sendTo from store wallets and getKeyStoreInfo pages side by side; the RSS. */
async function mixedLoad(
  node: NodeProcess,
  wallets: readonly string[],
  senders: readonly SenderWallet[],
): Promise<RssSummary> {
  const sampler = sampleRss(node.pid!, SAMPLE_MS);
  let summary: RssSummary;
  const until = Date.now() + MIXED_LOAD_SEC * 1000;
  const receivers = randomAddresses(64);
  const loops = [
    (async () => {
      while (Date.now() < until) await node.client.wallet.newWallet({ passphrase: 'bench' });
    })(),
    ...senders.map(async (sender, s) => {
      for (let i = 0; Date.now() < until; i++) {
        await node.client.operations.sendTo({
          sender: sender.address,
          passphrase: sender.passphrase,
          receiver: receivers[(s + i) % receivers.length]!,
          amount: '1',
        });
      }
    }),
    ...[0, 1].map(async () => {
      let after: string | undefined = pick(wallets, 1)[0];
      while (Date.now() < until) {
        const page = await node.client.wallet.getKeyStoreInfo({
          max: 100,
          ...(after === undefined ? {} : { after }),
        });
        after = page.at(-1)?.wallet ?? pick(wallets, 1)[0];
      }
    }),
  ];
  try {
    await Promise.all(loops);
  } finally {
    summary = await sampler.stop();
  }
  return summary;
}

/** A node on a fixture, indexed and restarted, with what its start measured. */
interface PreparedNode {
  fixture: KeyStoreFixture;
  label: string;
  datadir: string;
  node: NodeProcess;
  /** Random wallets of the store (at most 100,000 of them). */
  wallets: string[];
  senders: SenderWallet[];
  buildRate: number;
  buildPeakBytes: number;
  startupSec: number;
  startPeakBytes: number;
}

/** Every node of a data directory runs on default flags. */
function nodeOptions(datadir: string) {
  return { datadir, args: ['--log-level', 'warn'], readyTimeoutMs: 60_000 };
}

/** First start (the index built), then a restart: start-up and RSS; store wallets as senders. */
async function prepareNode(ctx: BenchContext, fixture: KeyStoreFixture): Promise<PreparedNode> {
  const label = `${count(fixture.wallets)} wallets`;
  const wallets = pick(await fixture.addresses(), Math.min(fixture.wallets, 100_000));
  const datadir = await mkdtemp(join(tmpdir(), 'chain-bench-keystore-run-'));
  const options = nodeOptions(datadir);
  const first = createNodeProcess(options);
  let buildRate: number;
  let buildPeakBytes: number;
  try {
    await rm(datadir, { recursive: true });
    await linkKeyStore(fixture, datadir);
    await first.start();
    const build = sampleRss(first.pid!, SAMPLE_MS);
    // The rate from the first answer on (the node's own start-up is not the build's).
    const buildStartedAt = performance.now();
    const atReady = (await keyStoreStatus(first.client)).indexing?.done ?? fixture.wallets;
    await waitUntilIndexed(ctx, first, label);
    const buildSec = (performance.now() - buildStartedAt) / 1000;
    buildPeakBytes = (await build.stop()).maxBytes;
    buildRate = (fixture.wallets - atReady) / Math.max(buildSec, 1e-3);
    ctx.log(
      `  ${label}: indexed in ${buildSec.toFixed(1)} s (${Math.round(buildRate)} files/s), peak RSS ${mb(buildPeakBytes)} MB`,
    );
  } finally {
    await first.close();
  }
  const node = createNodeProcess(options);
  try {
    const startedAt = performance.now();
    await node.start();
    const startupSec = (performance.now() - startedAt) / 1000;
    const start = sampleRss(node.pid!, SAMPLE_MS);
    await sleep(1_000);
    const startPeakBytes = (await start.stop()).maxBytes;
    const status = await keyStoreStatus(node.client);
    if (status.indexing !== null) throw new Error(`${label}: indexing again after a restart`);
    ctx.log(
      `  ${label}: ready in ${startupSec.toFixed(2)} s once indexed, RSS ${mb(startPeakBytes)} MB; ${count(status.wallets)} wallets`,
    );
    const settled = await settle(node.pid);
    ctx.log(
      `  ${label}: ${settled.idle ? 'settled' : 'still busy'} after ${settled.sec.toFixed(1)} s (LevelDB compacting the fresh index)`,
    );
    const senders = await createSenders(node.client, SENDERS, '100000');
    return {
      fixture,
      label,
      datadir,
      node,
      wallets,
      senders,
      buildRate,
      buildPeakBytes,
      startupSec,
      startPeakBytes,
    };
  } catch (error) {
    await node.close();
    await rm(datadir, { recursive: true, force: true });
    throw error;
  }
}

/** The node's CPU share under which it is taken as idle (its timers and gossip of a dev chain). */
const IDLE_CPU_SHARE = 0.05;
const SETTLE_WINDOW_MS = 2_000;
const SETTLE_LIMIT_MS = 180_000;

/**
 * Waits until the node uses under 5% of a core over 2 s (at most 3 min): a store's index just
 * built is compacted by LevelDB in the background for a while after the restart, and a call timed
 * meanwhile measures that compaction beside it, not the call at that store size ("once indexed").
 */
async function settle(pid: number | undefined): Promise<{ idle: boolean; sec: number }> {
  const startedAt = performance.now();
  while (performance.now() - startedAt < SETTLE_LIMIT_MS) {
    const before = await processCpuSeconds(pid);
    await sleep(SETTLE_WINDOW_MS);
    const after = await processCpuSeconds(pid);
    if (before === undefined || after === undefined) break;
    if (after - before < (IDLE_CPU_SHARE * SETTLE_WINDOW_MS) / 1000) {
      return { idle: true, sec: (performance.now() - startedAt) / 1000 };
    }
  }
  return { idle: false, sec: (performance.now() - startedAt) / 1000 };
}

/**
 * Each call's median latency on both nodes, the calls of one node then the other's, alternately
 * (who goes first swaps every round): on a machine shared with other work, both see the same load.
 */
async function pairedLatencies(
  small: PreparedNode,
  large: PreparedNode,
): Promise<{ small: Record<CallName, number>; large: Record<CallName, number> }> {
  const empty = () =>
    Object.fromEntries(CALL_NAMES.map((name) => [name, [] as number[]])) as Record<
      CallName,
      number[]
    >;
  const samples = { small: empty(), large: empty() };
  for (let i = 0; i < CALLS; i++) {
    const order = i % 2 === 0 ? (['small', 'large'] as const) : (['large', 'small'] as const);
    for (const side of order) {
      const prepared = side === 'small' ? small : large;
      await oneRound(prepared, i, samples[side]);
    }
  }
  const medians = (of: Record<CallName, number[]>) =>
    Object.fromEntries(CALL_NAMES.map((name) => [name, median(of[name])])) as Record<
      CallName,
      number
    >;
  return { small: medians(samples.small), large: medians(samples.large) };
}

/** One call of each kind, one at a time, on a random wallet of the store. */
async function oneRound(
  prepared: PreparedNode,
  i: number,
  samples: Record<CallName, number[]>,
): Promise<void> {
  const client = prepared.node.client;
  const [wallet, after] = pick(prepared.wallets, 2) as [string, string];
  const passphrase = FIXTURE_PASSPHRASE;
  // lock wipes the cached key: the unlock pays scrypt at every size; dump and sign use the key the
  // unlock cached, as a wallet used twice in a row does.
  samples.lockWallet.push(await timedMs(() => client.wallet.lockWallet({ wallet })));
  samples.unlockWallet.push(
    await timedMs(() => client.wallet.unlockWallet({ wallet, passphrase })),
  );
  samples.dumpPrivateKey.push(
    await timedMs(() => client.wallet.dumpPrivateKey({ wallet, passphrase })),
  );
  samples.signMessage.push(
    await timedMs(() => client.wallet.signMessage({ wallet, passphrase, message: `m${i}` })),
  );
  samples.newWallet.push(await timedMs(() => client.wallet.newWallet({ passphrase: 'bench' })));
  const sender = prepared.senders[i % prepared.senders.length]!;
  const [receiver] = randomAddresses(1) as [string];
  samples.sendTo.push(
    await timedMs(() =>
      client.operations.sendTo({
        sender: sender.address,
        passphrase: sender.passphrase,
        receiver,
        amount: '1',
      }),
    ),
  );
  samples.getKeyStoreCount.push(await timedMs(() => client.wallet.getKeyStoreCount()));
  samples.getKeyStoreInfo.push(
    await timedMs(() => client.wallet.getKeyStoreInfo({ max: 100, after })),
  );
}

/**
 * A newWallet, then kill -9 as soon as it answered; the node restarted on the same data directory
 * must hold it and open it with its passphrase (else the run fails). Returns the restart's start-up
 * to ready (the index's journal replayed, nothing scanned).
 */
async function newWalletThenKill(
  ctx: BenchContext,
  { label, datadir }: PreparedNode,
  node: NodeProcess,
): Promise<number> {
  const passphrase = 'crash';
  const before = await node.client.wallet.getKeyStoreCount();
  const { wallet } = await node.client.wallet.newWallet({ passphrase });
  process.kill(node.pid!, 'SIGKILL');
  await node.close();
  const restarted = createNodeProcess(nodeOptions(datadir));
  try {
    const startedAt = performance.now();
    await restarted.start();
    const restartSec = (performance.now() - startedAt) / 1000;
    const after = await restarted.client.wallet.getKeyStoreCount();
    const dumped = await restarted.client.wallet.dumpPrivateKey({ wallet, passphrase });
    if (after !== before + 1 || dumped.status !== true) {
      throw new Error(`${label}: the wallet made just before the kill -9 is gone (${wallet})`);
    }
    ctx.log(
      `  ${label}: a newWallet then kill -9: the wallet is there after the restart, ready in ${restartSec.toFixed(2)} s`,
    );
    return restartSec;
  } finally {
    await restarted.close();
  }
}

/** The mixed load's RSS, walletRefresh after files copied in, the index's size, a kill -9. */
async function finishNode(
  ctx: BenchContext,
  prepared: PreparedNode,
  latencyMs: Record<CallName, number>,
): Promise<KeyStoreRun> {
  const { node, label, fixture, datadir } = prepared;
  let victim = node;
  try {
    ctx.log(
      `  ${label}: ${CALL_NAMES.map((name) => `${name} ${latencyMs[name].toFixed(2)} ms`).join(', ')}`,
    );
    const mixed = await mixedLoad(node, prepared.wallets, prepared.senders);
    ctx.log(
      `  ${label}: peak RSS under the mixed load ${mb(mixed.maxBytes)} MB (RssAnon at most ${mb(mixed.maxAnonBytes)} MB, RssFile at most ${mb(mixed.maxFileBytes)} MB)`,
    );
    const keyDir = join(datadir, 'keystore');
    // The mixed load's index writes are compacted for a few seconds after it: the refresh is
    // timed on the node alone, as the calls are.
    const settled = await settle(node.pid);
    ctx.log(
      `  ${label}: ${settled.idle ? 'settled' : 'still busy'} ${settled.sec.toFixed(1)} s after the mixed load`,
    );
    const before = await node.client.wallet.getKeyStoreCount();
    await copyExtraFiles(fixture, keyDir);
    const refreshStartedAt = performance.now();
    // Its own client: a refresh may take longer than the default client's timeout, and is timed.
    const patient = createClient({ url: node.rpcUrl, timeoutMs: 600_000, retries: 0 });
    await patient.wallet.walletRefresh({});
    const refreshSec = (performance.now() - refreshStartedAt) / 1000;
    const after = await node.client.wallet.getKeyStoreCount();
    if (after - before !== EXTRA_FILES) {
      throw new Error(`${label}: walletRefresh found ${after - before} of ${EXTRA_FILES} files`);
    }
    ctx.log(
      `  ${label}: walletRefresh after ${EXTRA_FILES} files copied in: ${refreshSec.toFixed(2)} s`,
    );
    const indexBytesPerWallet = (await indexBytes(keyDir)) / after;
    ctx.log(`  ${label}: index ${indexBytesPerWallet.toFixed(0)} bytes per wallet`);
    // A node's CPU profile is written when it exits gracefully only: a profiled run stops the
    // node that refreshed and kills a fresh one on the same directory instead.
    if (process.env.BENCH_NODE_CPU_PROF) {
      await node.close();
      victim = createNodeProcess(nodeOptions(datadir));
      await victim.start();
    }
    const crashRestartSec = await newWalletThenKill(ctx, prepared, victim);
    return {
      wallets: fixture.wallets,
      buildRate: prepared.buildRate,
      buildPeakBytes: prepared.buildPeakBytes,
      startupSec: prepared.startupSec,
      startPeakBytes: prepared.startPeakBytes,
      mixedPeakBytes: mixed.maxBytes,
      mixedAnonBytes: mixed.maxAnonBytes,
      mixedFileBytes: mixed.maxFileBytes,
      latencyMs,
      refreshSec,
      indexBytesPerWallet,
      crashRestartSec,
    };
  } finally {
    await node.close();
    await victim.close();
    await rm(datadir, { recursive: true, force: true });
  }
}

/** The figures of one large run against the 10-wallet run. */
export function keyStoreFigures(small: KeyStoreRun, large: KeyStoreRun): Figure[] {
  const at = `${count(large.wallets)} wallets`;
  const vs = `the same at ${count(small.wallets)} wallets`;
  const figures: Figure[] = [
    compareWithCeiling({
      name: `start-up to ready once indexed, ${at}`,
      value: large.startupSec,
      unit: 's',
      ceiling: small.startupSec,
      ceilingName: vs,
      target: STARTUP_BOUND_SEC,
      targetOf: 'max',
      higherIsBetter: false,
    }),
    compareWithCeiling({
      name: `peak RSS at start, ${at}`,
      value: mb(large.startPeakBytes),
      unit: 'MB',
      ceiling: mb(small.startPeakBytes),
      ceilingName: vs,
      target: RSS_BOUND_MB,
      targetOf: 'max',
      higherIsBetter: false,
    }),
    compareWithCeiling({
      name: `peak RSS under newWallet + sendTo + getKeyStoreInfo, ${at}`,
      value: mb(large.mixedPeakBytes),
      unit: 'MB',
      ceiling: mb(small.mixedPeakBytes),
      ceilingName: vs,
      target: RSS_BOUND_MB,
      targetOf: 'max',
      higherIsBetter: false,
    }),
    compareWithCeiling({
      name: `getKeyStoreInfo (max 100, after a random wallet), ${at}`,
      value: large.latencyMs.getKeyStoreInfo,
      unit: 'ms',
      ceiling: small.latencyMs.getKeyStoreInfo,
      ceilingName: vs,
      target: PAGE_BOUND_MS,
      targetOf: 'max',
      higherIsBetter: false,
    }),
    compareWithCeiling({
      name: `start-up to ready after a newWallet and kill -9 (the wallet kept), ${at}`,
      value: large.crashRestartSec,
      unit: 's',
      ceiling: small.crashRestartSec,
      ceilingName: vs,
      target: STARTUP_BOUND_SEC,
      targetOf: 'max',
      higherIsBetter: false,
    }),
    compareWithCeiling({
      name: `walletRefresh after ${EXTRA_FILES} files copied in, ${at}`,
      value: large.refreshSec,
      unit: 's',
      ceiling: small.refreshSec,
      ceilingName: vs,
      target: REFRESH_BOUND_SEC,
      targetOf: 'max',
      higherIsBetter: false,
    }),
  ];
  for (const name of CALL_NAMES) {
    if (name === 'getKeyStoreInfo') continue;
    figures.push(
      compareWithCeiling({
        name: `${name} median latency, ${at}`,
        value: large.latencyMs[name],
        unit: 'ms',
        ceiling: small.latencyMs[name],
        ceilingName: vs,
        // ceiling / value: at most 1.2x slower.
        target: 1 / LATENCY_RATIO_BOUND,
        higherIsBetter: false,
      }),
    );
  }
  figures.push(
    referenceFigure({ name: `index build rate, ${at}`, value: large.buildRate, unit: 'files/s' }),
    referenceFigure({
      name: `peak RSS during the index build, ${at}`,
      value: mb(large.buildPeakBytes),
      unit: 'MB',
    }),
    referenceFigure({
      name: `RssAnon at most under the mixed load, ${at}`,
      value: mb(large.mixedAnonBytes),
      unit: 'MB',
    }),
    referenceFigure({
      name: `RssFile at most under the mixed load, ${at}`,
      value: mb(large.mixedFileBytes),
      unit: 'MB',
    }),
    referenceFigure({
      name: `index bytes per wallet, ${at}`,
      value: large.indexBytesPerWallet,
      unit: 'B',
    }),
  );
  return figures;
}

export default defineBenchmark({
  name: 'keystore-scale',
  description:
    'key stores of 10, 100,000 and 1,000,000 wallets: start-up, RSS, call latencies, walletRefresh',
  optIn: true,
  async run(ctx) {
    const [smallest, ...scales] = scalesOf(process.env.BENCH_KEYSTORE_SCALES);
    if (smallest === undefined) return [];
    const small = await prepareNode(ctx, await keyStoreFixture(smallest, ctx.log));
    const figures: Figure[] = [];
    let smallLatency: Record<CallName, number> | undefined;
    try {
      for (const wallets of scales) {
        const large = await prepareNode(ctx, await keyStoreFixture(wallets, ctx.log));
        let paired: Awaited<ReturnType<typeof pairedLatencies>>;
        try {
          paired = await pairedLatencies(small, large);
        } catch (error) {
          await large.node.close();
          throw error;
        }
        smallLatency = paired.small;
        const largeRun = await finishNode(ctx, large, paired.large);
        // The 10-wallet node's figures of this pairing, its mixed load and refresh measured once.
        figures.push(
          ...keyStoreFigures({ ...smallRunOf(small), latencyMs: paired.small }, largeRun),
        );
      }
    } finally {
      const smallRun = await finishNode(ctx, small, smallLatency ?? emptyLatency());
      // The refresh and mixed-load figures compare with the small node's, measured at the end.
      for (const figure of figures) patchSmallFigure(figure, smallRun);
    }
    return figures;
  },
});

function emptyLatency(): Record<CallName, number> {
  return Object.fromEntries(CALL_NAMES.map((name) => [name, Number.NaN])) as Record<
    CallName,
    number
  >;
}

/** What the small node measured before its mixed load and refresh (those come at the end). */
function smallRunOf(small: PreparedNode): KeyStoreRun {
  return {
    wallets: small.fixture.wallets,
    buildRate: small.buildRate,
    buildPeakBytes: small.buildPeakBytes,
    startupSec: small.startupSec,
    startPeakBytes: small.startPeakBytes,
    mixedPeakBytes: Number.NaN,
    mixedAnonBytes: Number.NaN,
    mixedFileBytes: Number.NaN,
    latencyMs: emptyLatency(),
    refreshSec: Number.NaN,
    indexBytesPerWallet: Number.NaN,
    crashRestartSec: Number.NaN,
  };
}

/** Fills in the small node's mixed-load RSS and refresh time as the ceilings of those figures. */
function patchSmallFigure(figure: Figure, small: KeyStoreRun): void {
  const ceiling = figure.name.startsWith('peak RSS under')
    ? mb(small.mixedPeakBytes)
    : figure.name.startsWith('walletRefresh')
      ? small.refreshSec
      : figure.name.startsWith('start-up to ready after a newWallet')
        ? small.crashRestartSec
        : undefined;
  if (ceiling === undefined) return;
  figure.ceiling = ceiling;
  figure.ratio = ceiling / figure.value;
}
