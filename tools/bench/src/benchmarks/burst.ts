/**
 * A burst at full intake (issue 44 item 0): pre-signed transfers, one per excuteRaw call, from 128
 * signers on as many connections, a refused one sent again 100 ms later, into the real
 * chain-node binary on its default flags but for blocks every 5 s, for a minute (`--duration 600`:
 * ten), while getBlockCount is polled every 20 ms on a connection of its own. The pool fills past
 * what the blocks take, so the node must refuse (MEMPOOL_FULL) rather than stop past its heap
 * budget; afterwards every acknowledged operation must be mined.
 *
 * Figures: the node's peak RSS against 400 MB; getBlockCount p99 and worst while flooded and
 * draining, against the same poll on the idle node; the share of refusals that are MEMPOOL_FULL;
 * intake with a nearly full pool against intake with a nearly empty one (intakeByFill); the drain rate against what blocks on time, full, would take.
 */
import { writeFileSync } from 'node:fs';
import { compareWithCeiling, defineBenchmark, type Figure } from '../benchmark.js';
import { percentile, RETRY_AFTER_MS, runCallLoad } from '../call-load.js';
import {
  createSignerKeys,
  nOperations,
  operationsMinedAfter,
  randomAddresses,
  type SignerKey,
  sleep,
  waitUntilNothingPending,
} from '../dev-chain.js';
import { openKeepAliveConnection } from '../keep-alive-connection.js';
import { createNodeProcess, type NodeProcess } from '../node-process.js';
import { sampleRss } from '../rss-sampler.js';
import { presign } from './execute-raw-throughput.js';

/**
 * Blocks every 5 s, the figure; BENCH_BURST_BLOCK_TIME_MS sets another interval for a
 * machine whose intake does not outrun 5-s blocks (the pool then never fills: logged). Not CHAIN_*:
 * chain-node reads those as its own options.
 */
export const BURST_BLOCK_TIME_MS = Number(process.env.BENCH_BURST_BLOCK_TIME_MS ?? 5_000);
/** Seconds of burst when --duration is not given (`--duration 600` is the ten minutes). */
export const DEFAULT_BURST_SEC = 60;
/** One signer per connection: its pre-signed operations go in n_operation order. */
const SIGNERS = 128;
/**
 * Operations signed in advance per second of burst: above what blocks every 5 s take (2,000/s),
 * so the pool fills and the rest of the burst meets MEMPOOL_FULL; a burst that used them all
 * ends early (logged).
 */
const PLANNED_RATE = 3_000;
/**
 * Most operations signed ahead: 1.3 million, what ten minutes take once the pool is full (blocks
 * every 5 s take 2,000/s; a refused call is sent again, not dropped). 1.8 million ran the bench
 * process out of its heap when they went to the load's process in one message; they go a
 * connection's list at a time now (call-load.ts).
 */
const MAX_PRESIGNED = 1_300_000;
const RECEIVERS = 10_007;
const POLL_MS = 20;
/** The pool's count and the load's acknowledged and refused, sampled this often (intakeByFill). */
const SAMPLE_EVERY_MS = 200;
/** The dev genesis's maxBlockOperations. */
const BLOCK_OPERATIONS = 10_000;
const RSS_BOUND_MB = 400;
/** The bounds on getBlockCount while flooded and draining. */
const P99_BOUND_MS = 20;
const WORST_BOUND_MS = 100;
const INTAKE_TARGET = 0.9;
const DRAIN_TARGET = 0.9;
const MB = 2 ** 20;

/** getBlockCount's latency, and when each new height was first seen. */
interface Poll {
  latencies: Array<{ atMs: number; ms: number }>;
  heights: Map<number, number>;
  stop(): Promise<void>;
}

/** Polls getBlockCount every POLL_MS on its own keep-alive connection until stopped. */
async function pollBlockCount(url: string): Promise<Poll> {
  const connection = await openKeepAliveConnection(url);
  const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'getBlockCount' });
  const poll: Poll = { latencies: [], heights: new Map(), stop: async () => {} };
  let running = true;
  const loop = (async () => {
    while (running) {
      const started = performance.now();
      const reply = await connection.post(body);
      const ms = performance.now() - started;
      const atMs = Date.now();
      poll.latencies.push({ atMs, ms });
      const count = (JSON.parse(reply.body) as { result: number }).result;
      if (!poll.heights.has(count)) poll.heights.set(count, atMs);
      await sleep(Math.max(0, POLL_MS - ms));
    }
  })();
  poll.stop = async () => {
    running = false;
    await loop;
    connection.close();
  };
  return poll;
}

/** A 1-s sample of the pool and the load's counts. */
interface PoolSample {
  atMs: number;
  pending: number;
  succeeded: number;
  refused: number;
}

/** Intake over the sampled intervals of one fill of the pool. */
export interface IntakeAtFill {
  /** Acknowledged per second: all acknowledged in the intervals over all their time. */
  perSec: number;
  intervals: number;
  seconds: number;
}

/** The pool's fill, as a share of its peak (where MEMPOOL_FULL began), that is near empty / full. */
export const NEAR_EMPTY_SHARE = 0.25;
export const NEAR_FULL_SHARE = 0.9;

/**
 * Intake with the pool near empty and near full: acknowledged per second over every sampled
 * interval (SAMPLE_EVERY_MS) without a refusal that began with the pool at most NEAR_EMPTY_SHARE
 * of its peak, and at least NEAR_FULL_SHARE of it; the sum acknowledged over the sum of their time,
 * not a median of a few intervals. Once the pool is full it refills after each block (from about
 * two thirds of its peak to the peak in a second or two, then refuses until the next block), so
 * the intervals near full are each refill's last ones; near empty is the burst's start. The
 * samples given are those taken while the load ran.
 */
export function intakeByFill(samples: readonly PoolSample[]): {
  empty: IntakeAtFill;
  full: IntakeAtFill;
} {
  const peak = Math.max(0, ...samples.map((sample) => sample.pending));
  const empty = { acknowledged: 0, ms: 0, intervals: 0 };
  const full = { acknowledged: 0, ms: 0, intervals: 0 };
  for (let i = 1; i < samples.length; i++) {
    const [a, b] = [samples[i - 1]!, samples[i]!];
    if (b.refused > a.refused) continue;
    const into =
      a.pending <= NEAR_EMPTY_SHARE * peak
        ? empty
        : a.pending >= NEAR_FULL_SHARE * peak
          ? full
          : undefined;
    if (into === undefined) continue;
    into.acknowledged += b.succeeded - a.succeeded;
    into.ms += b.atMs - a.atMs;
    into.intervals++;
  }
  const rate = (sum: typeof empty): IntakeAtFill => ({
    perSec: sum.ms > 0 ? (sum.acknowledged * 1000) / sum.ms : Number.NaN,
    intervals: sum.intervals,
    seconds: sum.ms / 1000,
  });
  return { empty: rate(empty), full: rate(full) };
}

/** A block made after the load ended, while the pool drained. */
export interface DrainBlock {
  height: number;
  operations: number;
}

/** The drain's figure, and what it is made of. */
export interface Drain {
  /** Operations the drain's blocks took: what was pending when the load ended. */
  drained: number;
  /** Drained per second, from the last block seen before the load ended to the last block. */
  value: number;
  /** Drained per second had the fewest blocks that hold it come full and every BURST_BLOCK_TIME_MS. */
  ceiling: number;
  blocks: number;
  /** Each drain block's operations, in height order. */
  operations: number[];
  /** The drain's blocks but the last that came full (BLOCK_OPERATIONS): a draining pool fills them. */
  full: number;
  /** Seconds between the arrivals of consecutive blocks, the drain's first counted from the last before the end. */
  intervalsSec: number[];
}

/**
 * The drain: the blocks after the load ended up to the one that emptied the pool, as the poll saw
 * them arrive; the rate they drained at, and the rate blocks on time and full would have. What was
 * pending at the end is what those blocks took (read from the chain), not the pool's last sample
 * before the end: that one is up to a sample's interval old, and the load's last acknowledgements
 * after it (1,362 in session 25's ten minutes, 19,599 sampled against 20,961 drained) moved the
 * pool past two blocks' worth, so the ceiling counted two blocks where three were needed.
 */
export function drainRate(input: {
  heights: ReadonlyMap<number, number>;
  endedAtMs: number;
  blocks: readonly DrainBlock[];
}): Drain {
  const arrivals = [...input.heights.entries()].sort((a, b) => a[0] - b[0]);
  const before = arrivals.filter(([, at]) => at <= input.endedAtMs).at(-1);
  const drained = input.blocks.reduce((sum, block) => sum + block.operations, 0);
  const lastHeight = input.blocks.at(-1)?.height;
  const seen = new Map(arrivals);
  const lastAt = lastHeight === undefined ? undefined : seen.get(lastHeight);
  const spanSec = before === undefined || lastAt === undefined ? 0 : (lastAt - before[1]) / 1000;
  const needed = Math.max(1, Math.ceil(drained / BLOCK_OPERATIONS));
  const intervalsSec: number[] = [];
  let previous = before?.[1];
  for (const block of input.blocks) {
    const at = seen.get(block.height);
    if (at !== undefined && previous !== undefined) intervalsSec.push((at - previous) / 1000);
    previous = at;
  }
  return {
    drained,
    value: spanSec > 0 ? drained / spanSec : Number.NaN,
    ceiling: drained / ((needed * BURST_BLOCK_TIME_MS) / 1000),
    blocks: input.blocks.length,
    operations: input.blocks.map((block) => block.operations),
    full: input.blocks.slice(0, -1).filter((block) => block.operations === BLOCK_OPERATIONS).length,
    intervalsSec,
  };
}

/** The operations of blocks fromHeight+1 .. toHeight (the drain's few blocks: one batch). */
async function drainBlocks(
  node: NodeProcess,
  fromHeight: number,
  toHeight: number,
): Promise<DrainBlock[]> {
  const heights = Array.from({ length: toHeight - fromHeight }, (_, i) => fromHeight + 1 + i);
  if (heights.length === 0) return [];
  const infos = await node.client.batch(
    heights.map((block) => ({ method: 'getBlockInfo' as const, params: { block } })),
  );
  return infos.map((info, i) => {
    if (info instanceof Error) throw info;
    return { height: heights[i]!, operations: info.operations };
  });
}

/** How long before a new block is seen its production and commit may run (the node's work). */
const BLOCK_WORK_MS = 2_000;

/**
 * The polls slower than `boundMs`, told apart by whether they answered within BLOCK_WORK_MS
 * before a new height was first seen (a block being made or committed) or at another time (the
 * intake's own work, the collector): which of the two the p99 is made of.
 */
export function slowPollsByBlock(
  polls: ReadonlyArray<{ atMs: number; ms: number }>,
  heights: ReadonlyMap<number, number>,
  boundMs: number,
): Record<'nearBlock' | 'elsewhere', { polls: number; slow: number }> {
  const arrivals = [...heights.values()].sort((a, b) => a - b);
  const result = { nearBlock: { polls: 0, slow: 0 }, elsewhere: { polls: 0, slow: 0 } };
  let next = 0;
  for (const poll of [...polls].sort((a, b) => a.atMs - b.atMs)) {
    while (next < arrivals.length && arrivals[next]! < poll.atMs) next++;
    const near = next < arrivals.length && arrivals[next]! - poll.atMs <= BLOCK_WORK_MS;
    const bucket = near ? result.nearBlock : result.elsewhere;
    bucket.polls++;
    if (poll.ms > boundMs) bucket.slow++;
  }
  return result;
}

/**
 * BENCH_BURST_POLLS=<file>: the flooded polls, the heights' arrivals and the pool's samples as JSON,
 * with one reading of the wall clock and the monotonic one (a CPU profile's clock), for
 * tools/bench/src/slow-polls.ts to match the slow polls with the node's collections and tasks.
 */
function writePolls(
  file: string,
  polls: ReadonlyArray<{ atMs: number; ms: number }>,
  heights: ReadonlyMap<number, number>,
  samples: readonly PoolSample[],
): void {
  const clock = { epochMs: Date.now(), monoUs: Number(process.hrtime.bigint() / 1000n) };
  writeFileSync(file, JSON.stringify({ clock, polls, heights: [...heights], samples }));
}

function requireAlive(node: NodeProcess, when: string): void {
  if (node.exit !== undefined) {
    throw new Error(
      `the node exited ${when} (code ${node.exit.code}, signal ${node.exit.signal}):\n${node.output().slice(-2_000)}`,
    );
  }
}

/**
 * What a failed step of the burst was, and the node's state then: whether it exited (code, signal)
 * and its last output (its heap budget, a crash), since an RPC failing with "other side closed"
 * says neither.
 */
async function failedDuring(node: NodeProcess, step: string, error: unknown): Promise<Error> {
  // A node that died closed its sockets a moment before its exit is seen.
  for (let waited = 0; node.exit === undefined && waited < 2_000; waited += 100) await sleep(100);
  const state =
    node.exit === undefined
      ? 'the node was still running'
      : `the node had exited (code ${node.exit.code}, signal ${node.exit.signal})`;
  const lines = node.output().trimEnd().split('\n').slice(-30).join('\n');
  return new Error(
    `${step} failed: ${(error as Error).message ?? String(error)}; ${state}; its last output:\n${lines}`,
  );
}

/** Acknowledged operations mined after `startHeight`: throws unless exactly those were. */
async function verifyMined(
  node: NodeProcess,
  signers: readonly SignerKey[],
  startHeight: number,
  before: readonly number[],
  acknowledged: number,
): Promise<{ mined: number; blocks: number }> {
  const head = (await node.client.block.getBlockCount()) - 1;
  const after = await nOperations(
    node.client,
    signers.map((signer) => signer.address),
  );
  const increase = after.reduce((sum, n, index) => sum + n - before[index]!, 0);
  const { operations, blocks } = await operationsMinedAfter(node.client, startHeight, head);
  if (operations !== acknowledged || increase !== acknowledged) {
    throw new Error(
      `${acknowledged} operations were acknowledged but ${operations} were mined ` +
        `(the signers' n_operation rose by ${increase})`,
    );
  }
  return { mined: operations, blocks };
}

export default defineBenchmark({
  name: 'burst',
  description:
    'pre-signed excuteRaw at full intake with blocks every 5 s on default flags: the node lives, refuses with MEMPOOL_FULL, drains',
  // Seconds of signing ahead, a minute of burst and the drain: about three minutes.
  async run(ctx): Promise<Figure[]> {
    const durationSec = ctx.durationGiven === true ? ctx.durationSec : DEFAULT_BURST_SEC;
    const receivers = randomAddresses(RECEIVERS);
    const node = createNodeProcess({
      args: ['--block-time', String(BURST_BLOCK_TIME_MS), '--log-level', 'warn'],
    });
    let step = 'starting the node';
    try {
      await node.start();
      ctx.log(
        `  funding and activating ${SIGNERS} signers (blocks every ${BURST_BLOCK_TIME_MS} ms)`,
      );
      step = 'funding the signers';
      const signers = await createSignerKeys(node.client, SIGNERS, '1000000');
      const perSigner = Math.ceil(Math.min(PLANNED_RATE * durationSec, MAX_PRESIGNED) / SIGNERS);
      ctx.log(`  signing ${perSigner * SIGNERS} transfers in advance, one per call`);
      step = 'signing ahead';
      const blobs = await presign(node.client, signers, perSigner, 1, receivers);
      await sleep(100);

      step = 'the idle poll';
      const idle = await pollBlockCount(node.rpcUrl);
      await sleep(3_000);
      await idle.stop();
      const idleSorted = idle.latencies.map((l) => l.ms).sort((a, b) => a - b);
      const idleP99 = percentile(idleSorted, 99);
      const idleWorst = idleSorted.at(-1) ?? Number.NaN;

      const startHeight = (await node.client.block.getBlockCount()) - 1;
      const before = await nOperations(
        node.client,
        signers.map((signer) => signer.address),
      );
      const rss = sampleRss(node.pid!, 250);
      const poll = await pollBlockCount(node.rpcUrl);
      const samples: PoolSample[] = [];
      let counts = { succeeded: 0, refused: 0 };
      let sampling = true;
      const startedAtMs = Date.now();
      const missedSamples: string[] = [];
      const sampler = (async () => {
        while (sampling) {
          try {
            const pending = await node.client.operations.getPendingCount();
            samples.push({ atMs: Date.now(), pending, ...counts });
          } catch (error) {
            // No reply within the client's 5 s: the node held its event loop that long (logged).
            missedSamples.push(
              `${Math.round((Date.now() - startedAtMs) / 1000)} s: ${(error as Error).message}`,
            );
          }
          await sleep(SAMPLE_EVERY_MS);
        }
      })();
      ctx.log(
        `  burst: excuteRaw on ${SIGNERS} connections for ${durationSec} s (a refused call is sent again ${RETRY_AFTER_MS} ms later), then the drain`,
      );
      let lastLogged = 0;
      step = 'the burst';
      const load = await runCallLoad(
        {
          url: node.rpcUrl,
          method: 'excuteRaw',
          params: {},
          sequences: { rawoperation: blobs },
          refusalsInResult: true,
          retryReason: 'MEMPOOL_FULL',
          connections: SIGNERS,
          durationSec,
          progressEverySec: SAMPLE_EVERY_MS / 1000,
        },
        (progress) => {
          counts = { succeeded: progress.succeeded, refused: progress.refused };
          if (Date.now() - lastLogged >= 10_000) {
            lastLogged = Date.now();
            ctx.log(
              `    ${Math.round((Date.now() - startedAtMs) / 1000)} s: acknowledged ${progress.succeeded}, ` +
                `refused ${progress.refused}, pending ${samples.at(-1)?.pending ?? 0}, RSS ${Math.round(rss.maxBytes / MB)} MB peak`,
            );
          }
        },
      );
      requireAlive(node, 'during the burst');
      if (load.durationSec < durationSec - 1) {
        ctx.log(
          `  the ${perSigner * SIGNERS} operations signed ahead were used up after ${load.durationSec.toFixed(0)} s of the ${durationSec} s`,
        );
      }
      step = 'the drain';
      const minedAtMs = await waitUntilNothingPending(node.client, 10 * 60_000);
      const drained = { minedAtMs, head: (await node.client.block.getBlockCount()) - 1 };
      sampling = false;
      await sampler;
      await poll.stop();
      const peak = await rss.stop();
      requireAlive(node, 'while draining');
      step = 'the check of what was mined';
      const run = await verifyMined(node, signers, startHeight, before, load.succeeded);

      const floodedPolls = poll.latencies.filter(
        (l) => l.atMs >= load.startedAtMs && l.atMs <= drained.minedAtMs,
      );
      const flooded = floodedPolls.map((l) => l.ms).sort((a, b) => a - b);
      const p50 = percentile(flooded, 50);
      const p99 = percentile(flooded, 99);
      const worst = flooded.at(-1) ?? Number.NaN;
      const sampledAtEnd = samples.filter((s) => s.atMs <= load.endedAtMs).at(-1)?.pending ?? 0;
      const heightAtEnd = Math.max(
        startHeight,
        ...[...poll.heights].filter(([, at]) => at <= load.endedAtMs).map(([height]) => height),
      );
      const drain = drainRate({
        heights: poll.heights,
        endedAtMs: load.endedAtMs,
        blocks: await drainBlocks(node, heightAtEnd, drained.head),
      });
      const atEnd = drain.drained;
      // While the load ran: before it and in the drain nothing is sent (no intake to measure).
      const intake = intakeByFill(
        samples.filter((s) => s.atMs >= load.startedAtMs && s.atMs <= load.endedAtMs),
      );
      const peakPending = Math.max(0, ...samples.map((s) => s.pending));
      const fullRefusals = load.refusedByReason.MEMPOOL_FULL ?? 0;
      ctx.log(
        `  acknowledged ${load.succeeded} (${Math.round(load.succeededPerSec)}/s over ${load.durationSec.toFixed(0)} s), refused ${load.refused} ` +
          `(${JSON.stringify(load.refusedByReason)}), failed ${load.failed}; an acknowledged call's latency p50 ${load.p50Ms.toFixed(1)} ms, p99 ${load.p99Ms.toFixed(1)} ms; pending peak ${peakPending}, ` +
          `${atEnd} at the end (the pool's last sample before it: ${sampledAtEnd}), drained in ${((drained.minedAtMs - load.endedAtMs) / 1000).toFixed(1)} s ` +
          `(${drain.blocks} blocks); all ${run.mined} mined`,
      );
      ctx.log(
        `  the drain's blocks: ${drain.full} of ${Math.max(0, drain.blocks - 1)} before the last full (${BLOCK_OPERATIONS}); ` +
          `operations ${drain.operations.join(', ')}; seconds between arrivals ${drain.intervalsSec.map((s) => s.toFixed(2)).join(', ')}`,
      );
      ctx.log(
        `  getBlockCount flooded and draining: p50 ${p50.toFixed(1)} ms, p99 ${p99.toFixed(1)} ms, worst ${worst.toFixed(0)} ms ` +
          `(idle: p99 ${idleP99.toFixed(1)} ms, worst ${idleWorst.toFixed(1)} ms); RSS peak ${Math.round(peak.maxBytes / MB)} MB ` +
          `(anonymous ${Math.round(peak.maxAnonBytes / MB)} MB); drain ${Math.round(drain.value)}/s of ${Math.round(drain.ceiling)}/s`,
      );
      ctx.log(
        `  intake (acknowledged per second over the ${SAMPLE_EVERY_MS}-ms intervals without a refusal, by the pool's fill at their start): ` +
          `${Math.round(intake.empty.perSec)}/s with at most ${NEAR_EMPTY_SHARE * 100}% of its ${peakPending} peak pending ` +
          `(${intake.empty.intervals} intervals, ${intake.empty.seconds.toFixed(1)} s), ` +
          `${Math.round(intake.full.perSec)}/s with at least ${NEAR_FULL_SHARE * 100}% (${intake.full.intervals} intervals, ${intake.full.seconds.toFixed(1)} s)`,
      );
      const slow = slowPollsByBlock(floodedPolls, poll.heights, P99_BOUND_MS);
      ctx.log(
        `  polls over ${P99_BOUND_MS} ms: ${slow.nearBlock.slow} of ${slow.nearBlock.polls} in the ${BLOCK_WORK_MS / 1000} s before a new block, ` +
          `${slow.elsewhere.slow} of ${slow.elsewhere.polls} at other times`,
      );
      if (process.env.BENCH_BURST_POLLS) {
        writePolls(process.env.BENCH_BURST_POLLS, floodedPolls, poll.heights, samples);
      }
      for (const sample of load.errorSamples) ctx.log(`    ${sample}`);
      for (const missed of missedSamples) ctx.log(`    getPendingCount missed at ${missed}`);
      if (load.refused === 0) {
        ctx.log(
          `  nothing was refused: the burst never filled the pool (${peakPending} pending at most); a longer --duration fills it`,
        );
      }
      const label = `burst ${durationSec} s, blocks every ${BURST_BLOCK_TIME_MS / 1000} s`;
      return [
        compareWithCeiling({
          name: `node RSS peak, ${label}`,
          value: peak.maxBytes / MB,
          unit: 'MB',
          ceiling: RSS_BOUND_MB,
          ceilingName: 'bound of issue 44',
          target: 1,
          higherIsBetter: false,
        }),
        compareWithCeiling({
          name: `refusals that are MEMPOOL_FULL (${load.refused} refused, ${load.failed} failed), ${label}`,
          // NaN (a failed figure) when nothing was refused: the burst did not reach the limit.
          value: fullRefusals / (load.refused + load.failed),
          unit: 'share',
          ceiling: 1,
          ceilingName: 'all of them',
          target: 1,
        }),
        compareWithCeiling({
          name: `getBlockCount p99 while flooded and draining, ${label}`,
          value: p99,
          unit: 'ms',
          ceiling: idleP99,
          ceilingName: 'same poll, idle node',
          target: P99_BOUND_MS,
          targetOf: 'max',
          higherIsBetter: false,
        }),
        compareWithCeiling({
          name: `getBlockCount worst while flooded and draining, ${label}`,
          value: worst,
          unit: 'ms',
          ceiling: idleWorst,
          ceilingName: 'same poll, idle node',
          target: WORST_BOUND_MS,
          targetOf: 'max',
          higherIsBetter: false,
        }),
        compareWithCeiling({
          name: `intake with the pool near full (>= ${NEAR_FULL_SHARE * 100}% of its ${peakPending} peak), ${label}`,
          value: intake.full.perSec,
          unit: 'ops/s',
          ceiling: intake.empty.perSec,
          ceilingName: `intake with the pool near empty (<= ${NEAR_EMPTY_SHARE * 100}%)`,
          target: INTAKE_TARGET,
        }),
        compareWithCeiling({
          name: `drain of ${atEnd} pending after the burst, ${label}`,
          value: drain.value,
          unit: 'ops/s',
          ceiling: drain.ceiling,
          ceilingName: `blocks of ${BLOCK_OPERATIONS} on time`,
          target: DRAIN_TARGET,
        }),
      ];
    } catch (error) {
      throw await failedDuring(node, step, error);
    } finally {
      await node.close();
    }
  },
});
