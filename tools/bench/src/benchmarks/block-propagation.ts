/**
 * Block propagation across 3 chain-node processes in a line (producer a -> b -> c, so a block makes
 * two hops and is validated and imported at each before it is relayed): the time from a committing
 * a block to the last of the three having imported it, read from each node's own log of the block
 * (one machine, one clock). Issue 6: p99 under 500 ms.
 */
import { randomBytes } from 'node:crypto';
import { compareWithCeiling, defineBenchmark, type Figure, referenceFigure } from '../benchmark.js';
import { createNodeProcess, type NodeProcess } from '../node-process.js';

/** Issue 6: p99 of the propagation to every node under this. */
export const P99_BUDGET_MS = 500;
const BLOCKS = 120;
const SPACING_MS = 40;

/** Times at which a node logged each block (its `block` debug line). */
export class BlockLog {
  readonly times = new Map<number, number>();

  constructor(private readonly node: NodeProcess) {}

  /** Reads the output kept (the last 64 KiB): call it often enough that nothing scrolls away. */
  poll(): void {
    for (const line of this.node.output().split('\n')) {
      if (!line.includes('"msg":"block"')) continue;
      try {
        const record = JSON.parse(line) as { time?: unknown; block?: unknown };
        if (typeof record.block === 'number' && typeof record.time === 'number') {
          if (!this.times.has(record.block)) this.times.set(record.block, record.time);
        }
      } catch {
        // a line cut at the start of the window
      }
    }
  }
}

export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const index = Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1);
  return sorted[Math.max(0, index)]!;
}

async function waitUntil(what: string, probe: () => Promise<boolean>, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function activePeers(node: NodeProcess): Promise<number> {
  const status = (await node.client.network.nodeStatus()) as { netstats: { active: number } };
  return status.netstats.active;
}

export default defineBenchmark({
  name: 'block-propagation',
  description:
    'ms from a block committed on the producer to its import on all 3 nodes (a -> b -> c)',
  async run(ctx): Promise<Figure[]> {
    const common = ['--p2p-host', '127.0.0.1', '--log-level', 'debug'];
    const a = createNodeProcess({ args: [...common, '--block-time', '0'] });
    const nodes: NodeProcess[] = [a];
    try {
      await a.start();
      const b = createNodeProcess({
        args: [...common, '--no-mine', '--peers', `127.0.0.1:${a.p2pPort}`],
      });
      nodes.push(b);
      await b.start();
      const c = createNodeProcess({
        args: [...common, '--no-mine', '--peers', `127.0.0.1:${b.p2pPort}`],
      });
      nodes.push(c);
      await c.start();
      await waitUntil('the line a - b - c to connect', async () => (await activePeers(b)) === 2);
      // Let gossipsub build its mesh (a few heartbeats).
      await new Promise((resolve) => setTimeout(resolve, 3000));
      const dev = /wallet\s+([A-Za-z0-9]{2}[0-9a-f]{46})/.exec(a.output())?.[1];
      if (dev === undefined) throw new Error('no dev wallet in the producer banner');
      const receiver = (
        (await a.client.wallet.newWallet({ passphrase: 'x' })) as { wallet: string }
      ).wallet;
      const logs = nodes.map((node) => new BlockLog(node));
      const first = (await a.client.block.getBlockCount()) as number;
      ctx.log(`  ${BLOCKS} blocks from a, ${SPACING_MS} ms apart`);
      for (let i = 0; i < BLOCKS; i++) {
        await a.client.operations.sendTo({
          sender: dev,
          passphrase: 'dev',
          receiver,
          amount: `0.${randomBytes(2).readUInt16BE(0) + 1}`,
        });
        for (const log of logs) log.poll();
        await new Promise((resolve) => setTimeout(resolve, SPACING_MS));
      }
      const last = ((await a.client.block.getBlockCount()) as number) - 1;
      await waitUntil('c to import every block', async () => {
        for (const log of logs) log.poll();
        return logs[2]!.times.has(last);
      });
      const latencies: number[] = [];
      const hops: number[] = [];
      for (let height = first; height <= last; height++) {
        const [ta, tb, tc] = logs.map((log) => log.times.get(height));
        if (ta === undefined || tb === undefined || tc === undefined) continue;
        latencies.push(Math.max(tb, tc) - ta);
        hops.push(tb - ta);
      }
      if (latencies.length < BLOCKS / 2) {
        throw new Error(`only ${latencies.length} blocks were seen on all three nodes`);
      }
      latencies.sort((x, y) => x - y);
      hops.sort((x, y) => x - y);
      const p50 = percentile(latencies, 50);
      const p99 = percentile(latencies, 99);
      ctx.log(
        `  ${latencies.length} blocks: to all 3 nodes p50 ${p50} ms, p99 ${p99} ms; ` +
          `first hop p50 ${percentile(hops, 50)} ms`,
      );
      return [
        compareWithCeiling({
          name: 'block propagation to 3 nodes, p99',
          value: p99,
          unit: 'ms',
          ceiling: P99_BUDGET_MS,
          ceilingName: 'issue 6 budget (p99 < 500 ms)',
          target: 1,
          higherIsBetter: false,
        }),
        referenceFigure({ name: 'block propagation to 3 nodes, p50', value: p50, unit: 'ms' }),
      ];
    } finally {
      await Promise.all(nodes.map((node) => node.close()));
    }
  },
});
