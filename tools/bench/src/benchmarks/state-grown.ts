/**
 * State grown by real load (issue 45), the state-scale benchmark's phase beside its fixture runs:
 * one node on default flags (block time 500 ms) from a fresh chain, 16 wallets sending JSON-RPC
 * batches of 100 sendTo to new random addresses until the state holds the target number of
 * accounts, each transfer creating one. It prints, per tenth of the target:
 *
 * - sendTo accepted per second in that interval (the figure: the last interval's against the first,
 *   at least 0.8);
 * - VmRSS, its anonymous part (the node's own memory) and its file-backed part (code, and any table
 *   file LevelDB maps) apart;
 *
 * then, once every acknowledged transfer is mined (checked: block sums and the senders' n_operation),
 * stops the node and starts it again on the same data directory: process start to the first
 * getBlockCount answer and to nodeStatus `ready` (at most 3 s), with the data directory's size.
 *
 * Opt-in (`--only state-grown`). BENCH_GROWN_ACCOUNTS sets the target (default 10,000,000: about
 * 40 minutes on two cores; 1,000,000 to 2,000,000 for a quick look); BENCH_GROWN_KEEP=1 keeps the
 * data directory.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type ChainClient, createClient } from '@chain/rpc-client';
import { compareWithCeiling, defineBenchmark, type Figure } from '../benchmark.js';
import {
  createSenders,
  nOperations,
  operationsMinedAfter,
  randomAddresses,
  type SenderWallet,
  sleep,
  waitUntilNothingPending,
} from '../dev-chain.js';
import { freePorts } from '../free-ports.js';
import { describeMemoryParts, readMemoryParts } from '../memory-parts.js';
import { createNodeProcess, type NodeProcess } from '../node-process.js';
import { readResidentParts, sampleRss } from '../rss-sampler.js';
import { directoryBytes } from '../state-fixture.js';
import { cpuBetween, readThreadCpuReading, type ThreadCpuReading } from '../thread-cpu.js';
import { RSS_BOUND_MB, STARTUP_BOUND_SEC, WRITE_RATIO_TARGET } from './state-scale.js';

export const DEFAULT_GROWN_ACCOUNTS = 10_000_000;
const SENDERS = 16;
const PER_BATCH = 100;
const BLOCK_TIME_MS = 500;
const INTERVALS = 10;
const SAMPLE_MS = 500;
/** A batch refused whole (pool full) is sent again this much later. */
const RETRY_MS = 50;
const MB = 1024 * 1024;
/**
 * A batch of 100 sendTo waits its turn behind the others under load (seconds on a loaded machine):
 * a timeout would leave unknown which of its transfers were acknowledged, so the wait is long.
 */
const BATCH_TIMEOUT_MS = 120_000;

const count = (n: number) => n.toLocaleString('en-US');
const mb = (bytes: number) => Math.round(bytes / MB);

export interface GrowthInterval {
  /** Accounts created by the load at the interval's end. */
  accounts: number;
  acceptedPerSec: number;
  rssBytes: number;
  anonBytes: number;
  fileBytes: number;
}

export interface GrownState {
  target: number;
  acknowledged: number;
  intervals: GrowthInterval[];
  peakRssBytes: number;
  peakAnonBytes: number;
  peakFileBytes: number;
  blocks: number;
  firstAnswerSec: number;
  readySec: number;
  /** RSS once ready after the restart, before any load. */
  restartRssBytes: number;
  datadirBytes: number;
  chainBytes: number;
}

/** The senders' loop: each sends batches of PER_BATCH sendTo until `target` were acknowledged. */
async function growBySendTo(
  client: ChainClient,
  senders: readonly SenderWallet[],
  target: number,
  onAcknowledged: (total: number) => void,
): Promise<{ acknowledged: number; refused: number }> {
  let acknowledged = 0;
  let claimed = 0;
  let refused = 0;
  const sender = async (wallet: SenderWallet) => {
    for (;;) {
      const size = Math.min(PER_BATCH, target - claimed);
      if (size <= 0) return;
      claimed += size;
      const receivers = randomAddresses(size);
      const replies = await client.batch(
        receivers.map((receiver) => ({
          method: 'sendTo' as const,
          params: {
            sender: wallet.address,
            receiver,
            amount: '0.001',
            passphrase: wallet.passphrase,
          },
        })),
      );
      let ok = 0;
      for (const reply of replies) {
        if (reply instanceof Error) refused++;
        else ok++;
      }
      acknowledged += ok;
      // Refused transfers (a full pool) are claimed again: the target counts accounts created.
      claimed -= size - ok;
      onAcknowledged(acknowledged);
      if (ok < size) await sleep(RETRY_MS);
    }
  };
  await Promise.all(senders.map(sender));
  return { acknowledged, refused };
}

async function waitReady(client: ChainClient, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await client.network.nodeStatus()).ready) {
    if (Date.now() > deadline) throw new Error(`the node was not ready within ${timeoutMs} ms`);
    await sleep(20);
  }
}

export async function measureGrownState(
  log: (message: string) => void,
  target: number,
): Promise<GrownState> {
  const datadir = await mkdtemp(join(tmpdir(), 'state-grown-'));
  // BENCH_GROWN_PARTS=1: the node serves its metrics, read at each interval for RssAnon's parts.
  const metricsPort = process.env.BENCH_GROWN_PARTS === '1' ? (await freePorts(1))[0] : undefined;
  const metricsArgs =
    metricsPort === undefined ? [] : ['--metrics', '--metrics-port', String(metricsPort)];
  const args = ['--block-time', String(BLOCK_TIME_MS), '--log-level', 'warn', ...metricsArgs];
  let node: NodeProcess | undefined = createNodeProcess({ datadir, args });
  try {
    await node.start();
    const pid = node.pid;
    if (pid === undefined) throw new Error('the node has no process id');
    const client = createClient({ url: node.rpcUrl, timeoutMs: BATCH_TIMEOUT_MS, retries: 0 });
    const senders = await createSenders(client, SENDERS, '1000000');
    const wallets = senders.map((sender) => sender.address);
    const startHeight = (await client.block.getBlockCount()) - 1;
    const before = await nOperations(client, wallets);

    const step = Math.ceil(target / INTERVALS);
    const intervals: GrowthInterval[] = [];
    let mark = { accounts: 0, at: performance.now() };
    // What the node spent in each interval: CPU by thread and collector pauses (the machine's other
    // load moves the rate; these say whether the node's own cost per transfer grows).
    let cpuMark: ThreadCpuReading | undefined = await readThreadCpuReading(pid);
    let gcMark = node.gcTotals();
    let sampling: Promise<void> = Promise.resolve();
    const sampler = sampleRss(pid, SAMPLE_MS);
    const grown = await growBySendTo(client, senders, target, (total) => {
      if (total < mark.accounts + step && total < target) return;
      const now = performance.now();
      const done = total - mark.accounts;
      const rate = (done * 1000) / (now - mark.at);
      mark = { accounts: total, at: now };
      sampling = sampling.then(async () => {
        const parts = await readResidentParts(pid);
        const memory =
          metricsPort === undefined
            ? undefined
            : await readMemoryParts(
                pid,
                `http://127.0.0.1:${metricsPort}/metrics`,
                join(datadir, 'chain'),
              );
        const cpuNow = await readThreadCpuReading(pid);
        const cpu = cpuBetween(cpuMark, cpuNow);
        cpuMark = cpuNow;
        const gcNow = node?.gcTotals();
        const gcMs =
          gcNow !== undefined && gcMark !== undefined ? gcNow.pauseMs - gcMark.pauseMs : 0;
        gcMark = gcNow;
        const interval = {
          accounts: total,
          acceptedPerSec: rate,
          rssBytes: parts?.rssBytes ?? 0,
          anonBytes: parts?.anonBytes ?? 0,
          fileBytes: parts?.fileBytes ?? 0,
        };
        intervals.push(interval);
        log(
          `  ${new Date().toISOString().slice(11, 19)} ${count(total)} accounts: ${Math.round(rate)} accepted/s; RSS ${mb(interval.rssBytes)} MB ` +
            `(${mb(interval.anonBytes)} MB anonymous, ${mb(interval.fileBytes)} MB file-backed); ` +
            (cpu === undefined
              ? 'CPU not read'
              : `node CPU ${((cpu.totalMs * 1000) / done).toFixed(0)} ms a 1,000 transfers ` +
                `(${cpu.busiest.map((t) => `${t.name} ${((t.ms * 1000) / done).toFixed(0)}`).join(', ')}), ` +
                `GC pause ${((gcMs * 1000) / done).toFixed(0)} ms a 1,000`) +
            (memory === undefined ? '' : `; ${describeMemoryParts(memory, interval.anonBytes)}`),
        );
      });
    });
    await sampling;
    await waitUntilNothingPending(client, 120_000);
    const rss = await sampler.stop();
    const drainedHead = (await client.block.getBlockCount()) - 1;
    const after = await nOperations(client, wallets);
    const increase = after.reduce((sum, n, index) => sum + n - before[index]!, 0);
    const { operations, blocks } = await operationsMinedAfter(client, startHeight, drainedHead);
    if (operations !== grown.acknowledged || increase !== grown.acknowledged) {
      throw new Error(
        `${grown.acknowledged} sendTo acknowledged but ${operations} mined (n_operation rose by ${increase})`,
      );
    }
    log(
      `  ${count(grown.acknowledged)} sendTo acknowledged (${grown.refused} refused and sent again), ` +
        `all mined in ${blocks} blocks; peak RSS ${mb(rss.maxBytes)} MB, at most ${mb(rss.maxAnonBytes)} MB anonymous ` +
        `and ${mb(rss.maxFileBytes)} MB file-backed`,
    );
    await node.close();

    // At debug level the node says where its start's time went ('start-up phases').
    const restartArgs = ['--block-time', String(BLOCK_TIME_MS), '--log-level', 'debug'];
    node = createNodeProcess({ datadir, args: restartArgs, readyTimeoutMs: 120_000 });
    const startedAt = performance.now();
    await node.start();
    const firstAnswerSec = (performance.now() - startedAt) / 1000;
    await waitReady(node.client, 120_000);
    const readySec = (performance.now() - startedAt) / 1000;
    const restartRssBytes = (node.pid === undefined ? undefined : await readResidentParts(node.pid))
      ?.rssBytes;
    const phases = node
      .output()
      .split('\n')
      .find((line) => line.includes('start-up phases'));
    if (phases !== undefined) log(`  restart: ${phases.trim()}`);
    const datadirBytes = await directoryBytes(datadir);
    const chainBytes = await directoryBytes(join(datadir, 'chain'));
    log(
      `  restart: first answer ${firstAnswerSec.toFixed(2)} s, ready ${readySec.toFixed(2)} s, ` +
        `RSS then ${mb(restartRssBytes ?? 0)} MB; data directory ${mb(datadirBytes)} MiB ` +
        `(chain ${mb(chainBytes)} MiB, ${Math.round(chainBytes / grown.acknowledged)} B an account)`,
    );
    return {
      target,
      acknowledged: grown.acknowledged,
      intervals,
      peakRssBytes: rss.maxBytes,
      peakAnonBytes: rss.maxAnonBytes,
      peakFileBytes: rss.maxFileBytes,
      blocks,
      firstAnswerSec,
      readySec,
      restartRssBytes: restartRssBytes ?? 0,
      datadirBytes,
      chainBytes,
    };
  } finally {
    await node?.close();
    // BENCH_GROWN_KEEP=1 keeps the grown data directory, to look into its LevelDB afterwards.
    if (process.env.BENCH_GROWN_KEEP === '1') log(`  data directory kept: ${datadir}`);
    else await rm(datadir, { recursive: true, force: true });
  }
}

export function grownStateFigures(run: GrownState): Figure[] {
  const at = `grown to ${count(run.acknowledged)} accounts by sendTo`;
  const first = run.intervals[0];
  const last = run.intervals[run.intervals.length - 1];
  if (first === undefined || last === undefined) throw new Error('no interval was measured');
  return [
    compareWithCeiling({
      name: `sendTo accepted/s, the last ${count(run.acknowledged - (run.intervals.at(-2)?.accounts ?? 0))} accounts, ${at}`,
      value: last.acceptedPerSec,
      unit: 'ops/s',
      ceiling: first.acceptedPerSec,
      ceilingName: `the first ${count(first.accounts)} accounts, same run`,
      target: WRITE_RATIO_TARGET,
    }),
    compareWithCeiling({
      name: `restart to ready, ${at}`,
      value: run.readySec,
      unit: 's',
      ceiling: run.firstAnswerSec,
      ceilingName: 'restart to the first getBlockCount answer',
      target: STARTUP_BOUND_SEC,
      targetOf: 'max',
      higherIsBetter: false,
    }),
    compareWithCeiling({
      name: `peak VmRSS while growing, ${at}, default flags`,
      value: run.peakRssBytes / MB,
      unit: 'MB',
      ceiling: run.peakAnonBytes / MB,
      ceilingName: `its anonymous part (file-backed at most ${mb(run.peakFileBytes)} MB)`,
      target: RSS_BOUND_MB,
      targetOf: 'max',
      higherIsBetter: false,
    }),
    compareWithCeiling({
      name: `data directory, ${at}`,
      value: run.datadirBytes / MB,
      unit: 'MiB',
      ceiling: run.chainBytes / MB,
      ceilingName: 'its chain database',
      target: 0,
      targetOf: 'none',
      higherIsBetter: false,
    }),
  ];
}

export function grownTargetFromEnvironment(env: NodeJS.ProcessEnv = process.env): number {
  if (env.BENCH_GROWN_ACCOUNTS === undefined) return DEFAULT_GROWN_ACCOUNTS;
  const target = Number(env.BENCH_GROWN_ACCOUNTS);
  if (!Number.isInteger(target) || target < INTERVALS * PER_BATCH) {
    throw new Error(
      `BENCH_GROWN_ACCOUNTS must be an integer of at least ${INTERVALS * PER_BATCH}, got ${env.BENCH_GROWN_ACCOUNTS}`,
    );
  }
  return target;
}

export default defineBenchmark({
  name: 'state-grown',
  description: `state grown by sendTo to ${count(DEFAULT_GROWN_ACCOUNTS)} new accounts from a fresh chain (BENCH_GROWN_ACCOUNTS): accepted/s per tenth, VmRSS with RssAnon and RssFile apart, restart to first answer and ready, data directory`,
  optIn: true,
  run: async (ctx) =>
    grownStateFigures(await measureGrownState(ctx.log, grownTargetFromEnvironment())),
});
