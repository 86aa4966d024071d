/**
 * What a node that does not produce costs in a network (issue 43: 30 nodes must fit 2 cores): 4
 * chain-node processes on 127.0.0.1, fully meshed (a producer P with 500 ms blocks, a submitter S,
 * followers F1 and F2). Each node's CPU (all its threads, from /proc) is read over an idle phase and
 * over a load phase of transfers submitted at S (gossiped to the others, then mined by P and
 * imported by all); a follower's CPU per operation is its load-phase CPU less its idle rate, per
 * operation acknowledged. The ceiling of the idle figure is the producer measured alone before the
 * others start (what a node costs without peers).
 *
 * Opt-in (`--only network-cpu`). NETCPU_LOW_RATE and NETCPU_RATE (transfers/s of the two load
 * phases, default 4 and 40: blocks and operations told apart), NETCPU_IDLE_S (default 20)
 * and `--duration` (the load phase's seconds, default the run's) size it; BENCH_NODE_CPU_PROF=<dir>
 * profiles follower F1 only (`profile-summary.ts` reads it).
 */
import { randomBytes } from 'node:crypto';
import { loadavg } from 'node:os';
import { compareWithCeiling, defineBenchmark, type Figure, referenceFigure } from '../benchmark.js';
import { createNodeProcess, type NodeProcess } from '../node-process.js';
import { processCpuSeconds } from '../process-cpu.js';

const BLOCK_TIME_MS = 500;
const ALONE_S = 10;
const MESH_SETTLE_MS = 5000;

interface Sizes {
  lowRate: number;
  rate: number;
  idleS: number;
  loadS: number;
}

function sizes(durationSec: number): Sizes {
  const number = (name: string, fallback: number) => {
    const value = Number(process.env[name] ?? fallback);
    if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} must be a number > 0`);
    return value;
  };
  return {
    lowRate: number('NETCPU_LOW_RATE', 4),
    rate: number('NETCPU_RATE', 40),
    idleS: number('NETCPU_IDLE_S', 20),
    loadS: durationSec,
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** CPU seconds of each node so far. */
async function cpuOf(nodes: readonly NodeProcess[]): Promise<number[]> {
  return Promise.all(nodes.map(async (node) => (await processCpuSeconds(node.pid)) ?? Number.NaN));
}

/** Milliseconds of CPU per second of each node over `seconds`, and the blocks made meanwhile. */
async function measure(
  nodes: readonly NodeProcess[],
  seconds: number,
  during: () => Promise<number> = async () => {
    await sleep(seconds * 1000);
    return 0;
  },
): Promise<{
  msPerS: number[];
  cpuMs: number[];
  elapsedS: number;
  blocks: number;
  operations: number;
}> {
  const height = async () => (await nodes[0]!.client.block.getBlockCount()) as number;
  const firstHeight = await height();
  const before = await cpuOf(nodes);
  const started = performance.now();
  const operations = await during();
  const elapsedS = (performance.now() - started) / 1000;
  const after = await cpuOf(nodes);
  const cpuMs = after.map((a, i) => (a - before[i]!) * 1000);
  return {
    msPerS: cpuMs.map((ms) => ms / elapsedS),
    cpuMs,
    elapsedS,
    blocks: (await height()) - firstHeight,
    operations,
  };
}

async function activePeers(node: NodeProcess): Promise<number> {
  const status = (await node.client.network.nodeStatus()) as { netstats: { active: number } };
  return status.netstats.active;
}

async function waitForMesh(nodes: readonly NodeProcess[]): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const peers = await Promise.all(nodes.map(activePeers));
    if (peers.every((p) => p === nodes.length - 1)) return;
    if (Date.now() > deadline) throw new Error(`the 4 nodes did not mesh (peers: ${peers})`);
    await sleep(200);
  }
}

/** Transfers from the dev wallet at `submitter`, `rate` a second for `seconds`; the count sent. */
async function load(submitter: NodeProcess, rate: number, seconds: number): Promise<number> {
  const dev = /wallet\s+([A-Za-z0-9]{2}[0-9a-f]{46})/.exec(submitter.output())?.[1];
  if (dev === undefined) throw new Error('no dev wallet in the submitter banner');
  const receiver = (
    (await submitter.client.wallet.newWallet({ passphrase: 'x' })) as { wallet: string }
  ).wallet;
  const started = performance.now();
  const total = Math.round(rate * seconds);
  let sent = 0;
  while (sent < total) {
    await submitter.client.operations.sendTo({
      sender: dev,
      passphrase: 'dev',
      receiver,
      amount: `0.${randomBytes(2).readUInt16BE(0) + 1}`,
    });
    sent++;
    const due = started + (sent * 1000) / rate;
    const wait = due - performance.now();
    if (wait > 0) await sleep(wait);
  }
  // The last ones mined and imported everywhere before the phase ends.
  await sleep(3 * BLOCK_TIME_MS);
  return sent;
}

type Phase = Awaited<ReturnType<typeof measure>>;

/**
 * A node's CPU above idle in two load phases (ms = blocks * perBlock + operations * perOperation),
 * solved for the cost of a block and of an operation: at a few operations a second each block
 * holds few, so one rate alone cannot tell them apart.
 */
export function splitCost(
  idleMsPerS: number,
  low: Phase,
  high: Phase,
  i: number,
): { perBlock: number; perOperation: number } {
  const above = (phase: Phase) => phase.cpuMs[i]! - idleMsPerS * phase.elapsedS;
  const [a1, b1, c1] = [low.blocks, low.operations, above(low)];
  const [a2, b2, c2] = [high.blocks, high.operations, above(high)];
  const det = a1 * b2 - a2 * b1;
  if (det === 0) return { perBlock: Number.NaN, perOperation: c2 / Math.max(1, b2) };
  return { perBlock: (c1 * b2 - c2 * b1) / det, perOperation: (a1 * c2 - a2 * c1) / det };
}

const load1 = () => loadavg()[0]!.toFixed(1);

export default defineBenchmark({
  name: 'network-cpu',
  description:
    "a follower's CPU in a 4-node mesh on loopback: ms/s idle, ms per gossiped operation",
  optIn: true,
  async run(ctx): Promise<Figure[]> {
    const sz = sizes(ctx.durationSec);
    const common = ['--p2p-host', '127.0.0.1', '--block-time', String(BLOCK_TIME_MS)];
    const off = { cpuProfileDir: '' };
    const producer = createNodeProcess({ args: common, ...off });
    const nodes: NodeProcess[] = [producer];
    try {
      await producer.start();
      ctx.log(`  the producer alone, ${ALONE_S} s (load average ${load1()})`);
      const alone = await measure([producer], ALONE_S);
      const peersOf = () => nodes.map((n) => `127.0.0.1:${n.p2pPort}`).join(';');
      for (const name of ['S', 'F1', 'F2']) {
        const node = createNodeProcess({
          args: [...common, '--no-mine', '--peers', peersOf()],
          ...(name === 'F1' ? {} : off),
        });
        nodes.push(node);
        await node.start();
      }
      await waitForMesh(nodes);
      await sleep(MESH_SETTLE_MS);
      ctx.log(`  4 nodes meshed; idle ${sz.idleS} s (load average ${load1()})`);
      const idle = await measure(nodes, sz.idleS);
      const phases: Phase[] = [];
      for (const rate of [sz.lowRate, sz.rate]) {
        ctx.log(`  load: ${rate} transfers/s at S for ${sz.loadS} s (load average ${load1()})`);
        phases.push(await measure(nodes, sz.loadS, () => load(nodes[1]!, rate, sz.loadS)));
      }
      const names = ['P', 'S', 'F1', 'F2'];
      const fmt = (values: number[]) =>
        values.map((v, i) => `${names[i]} ${v.toFixed(2)}`).join(', ');
      ctx.log(`  alone: P ${alone.msPerS[0]!.toFixed(2)} ms/s (${alone.blocks} blocks)`);
      ctx.log(`  idle ms/s: ${fmt(idle.msPerS)} (${idle.blocks} blocks)`);
      for (const phase of phases) {
        ctx.log(
          `  loaded ms/s: ${fmt(phase.msPerS)} (${phase.blocks} blocks, ${phase.operations} ops)`,
        );
      }
      const costs = nodes.map((_, i) => splitCost(idle.msPerS[i]!, phases[0]!, phases[1]!, i));
      ctx.log(`  ms per block: ${fmt(costs.map((c) => c.perBlock))}`);
      ctx.log(`  ms per operation: ${fmt(costs.map((c) => c.perOperation))}`);
      ctx.log(`  (load average ${load1()})`);
      const followers = (pick: (i: number) => number) => (pick(2) + pick(3)) / 2;
      const high = phases[1]!;
      return [
        costFigure(
          'follower CPU idle, 3 peers',
          followers((i) => idle.msPerS[i]!),
          'ms/s',
          alone.msPerS[0]!,
          'a node alone (no peers), idle',
        ),
        costFigure(
          'follower CPU per gossiped operation',
          followers((i) => costs[i]!.perOperation),
          'ms',
          costs[0]!.perOperation,
          'the producer, per operation',
        ),
        costFigure(
          'follower CPU per imported block',
          followers((i) => costs[i]!.perBlock),
          'ms',
          costs[0]!.perBlock,
          'the producer, per block made',
        ),
        referenceFigure({
          name: `follower CPU under ${high.operations / sz.loadS} transfers/s`,
          value: followers((i) => high.msPerS[i]!),
          unit: 'ms/s',
        }),
      ];
    } finally {
      await Promise.all(nodes.map((node) => node.close()));
    }
  },
});

/** A CPU cost set beside another process's (lower is better; reported, no target of its own). */
function costFigure(
  name: string,
  value: number,
  unit: string,
  ceiling: number,
  ceilingName: string,
): Figure {
  return compareWithCeiling({
    name,
    value,
    unit,
    ceiling,
    ceilingName,
    target: 0,
    targetOf: 'none',
    higherIsBetter: false,
  });
}
