/**
 * What the lab measures: when each node took each block (from the `block` records of its info
 * log, stamped by the node itself), tip heights over time (sampled by RPC), and the fate of every
 * acknowledged operation.
 */
import { readFile } from 'node:fs/promises';
import type { LabNode } from './lab-node';
import type { Acknowledged } from './load';
import type { LabOperation } from './rpc';

/** The node's JSON log records (lines cut by a kill are skipped). */
export async function logRecords(
  node: LabNode,
): Promise<Array<Record<string, unknown> & { time: number; msg: string }>> {
  const text = await readFile(node.logFile, 'utf8').catch(() => '');
  const records: Array<Record<string, unknown> & { time: number; msg: string }> = [];
  for (const line of text.split('\n')) {
    if (!line.startsWith('{')) continue;
    try {
      records.push(JSON.parse(line));
    } catch {
      // a line cut by a kill
    }
  }
  return records;
}

/** Height -> the first time (ms) the node logged a block of that height. */
export async function blockTimes(node: LabNode): Promise<Map<number, number>> {
  const times = new Map<number, number>();
  const text = await readFile(node.logFile, 'utf8').catch(() => '');
  for (const line of text.split('\n')) {
    if (!line.startsWith('{') || !line.includes('"msg":"block"')) continue;
    try {
      const record = JSON.parse(line) as { time: number; block: number };
      if (!times.has(record.block)) times.set(record.block, record.time);
    } catch {
      // a line cut by a kill
    }
  }
  return times;
}

export interface PropagationSample {
  height: number;
  node: string;
  /** ms after the first node (the producer) had the block. */
  ms: number;
  at: number;
}

/** Propagation delay of every block first seen in [from, to) to every other node that got it. */
export async function propagation(
  nodes: LabNode[],
  from: number,
  to: number,
): Promise<PropagationSample[]> {
  const perNode = await Promise.all(nodes.map(async (n) => [n.name, await blockTimes(n)] as const));
  const heights = new Set<number>();
  for (const [, times] of perNode) for (const h of times.keys()) heights.add(h);
  const samples: PropagationSample[] = [];
  for (const height of heights) {
    const seen = perNode
      .map(([name, times]) => ({ name, at: times.get(height) }))
      .filter((s): s is { name: string; at: number } => s.at !== undefined);
    const first = Math.min(...seen.map((s) => s.at));
    if (first < from || first >= to) continue;
    const origin = seen.find((s) => s.at === first)!.name;
    for (const s of seen) {
      if (s.name !== origin) samples.push({ height, node: s.name, ms: s.at - first, at: first });
    }
  }
  return samples;
}

export function percentile(values: number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1);
  return sorted[Math.max(0, rank)]!;
}

export interface TipSample {
  at: number;
  node: string;
  height: number;
}

/** Samples every node's block count every `everyMs` until stopped. */
export class TipSampler {
  readonly samples: TipSample[] = [];
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly nodes: () => LabNode[],
    private readonly everyMs = 1000,
  ) {}

  start(): void {
    this.timer = setInterval(() => void this.sample(), this.everyMs);
  }

  stop(): void {
    clearInterval(this.timer);
  }

  private async sample(): Promise<void> {
    const at = Date.now();
    await Promise.all(
      this.nodes().map(async (node) => {
        if (!node.running) return;
        const height = await node.blockCount().catch(() => undefined);
        if (height !== undefined) this.samples.push({ at, node: node.name, height: height - 1 });
      }),
    );
  }
}

export interface AuditResult {
  acknowledged: number;
  mined: number;
  conflicting: number;
  lost: Acknowledged[];
  /** Ophash -> height of the block that holds it, read on the audit's node. */
  blockOf: Map<string, number>;
}

/**
 * The fate of every acknowledged operation, read on `node`: mined; conflicting (not mined, and
 * another acknowledged operation of the same wallet with the same n_operation was: a double
 * spend); or lost.
 */
export async function audit(node: LabNode, acknowledged: Acknowledged[]): Promise<AuditResult> {
  const minedSlots = new Set<string>();
  const notMined: Acknowledged[] = [];
  const blockOf = new Map<string, number>();
  let mined = 0;
  const queue = [...acknowledged];
  const worker = async () => {
    for (let op = queue.shift(); op; op = queue.shift()) {
      const found = await node.call<LabOperation[]>('findOperation', { ophash: op.ophash });
      const holder = found.find((f) => f.block > 0);
      if (holder !== undefined) {
        mined++;
        blockOf.set(op.ophash, holder.block);
        minedSlots.add(`${op.wallet}:${op.nOperation}`);
      } else {
        notMined.push(op);
      }
    }
  };
  await Promise.all(Array.from({ length: 8 }, worker));
  const lost = notMined.filter((op) => !minedSlots.has(`${op.wallet}:${op.nOperation}`));
  return {
    acknowledged: acknowledged.length,
    mined,
    conflicting: notMined.length - lost.length,
    lost,
    blockOf,
  };
}

/**
 * From each mined operation's acknowledgement to the first time `node` logged the block that holds
 * it, ms (0 when the block came before the answer did), for the operations of `scenario`.
 */
export async function inclusionDelays(
  node: LabNode,
  acknowledged: Acknowledged[],
  blockOf: Map<string, number>,
  scenario: string,
): Promise<number[]> {
  const times = await blockTimes(node);
  const delays: number[] = [];
  for (const op of acknowledged) {
    const height = blockOf.get(op.ophash);
    const at = height === undefined ? undefined : times.get(height);
    if (op.scenario === scenario && at !== undefined) delays.push(Math.max(0, at - op.at));
  }
  return delays;
}
