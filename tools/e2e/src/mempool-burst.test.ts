import { randomBytes } from 'node:crypto';
import { addressFromHash160 } from '@chain/crypto';
import type { WalletInfo } from '@chain/spec';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BatchReply } from './harness/batch-call';
import { devWallet, waitFor } from './harness/chain';
import { call, type NodeProcess, post, rpc, startNode } from './harness/node-process';

/**
 * Issue 44 item 0: a burst past what the blocks take fills the pool to its byte budget (a share of
 * the heap budget), and the node refuses the rest with MEMPOOL_FULL instead of stopping past its
 * heap budget; once the burst ends the blocks drain it, every acknowledged operation mined.
 */
const HEAP_MB = 96;
const BLOCK_TIME_MS = 20_000;
/** The flood lasts until the pool has refused for FULL_FOR_MS, or FLOOD_MAX_MS at most. */
const FLOOD_MAX_MS = 90_000;
const FULL_FOR_MS = 3_000;
const CONNECTIONS = 8;
/** sendTo calls per JSON-RPC batch. */
const BATCH = 100;

let node: NodeProcess;
const dev = () => devWallet(node);

beforeAll(async () => {
  // A small heap (its pool, 30 % of it, holds about 16,000 transfers to new wallets) and blocks of
  // at most 10,000 operations every 20 s: a burst of sendTo batches fills the pool in seconds.
  node = await startNode({
    args: ['--max-heap-mb', String(HEAP_MB), '--block-time', String(BLOCK_TIME_MS)],
  });
});

afterAll(async () => {
  await node?.stop();
});

interface Flood {
  acknowledged: number;
  refusals: Map<string, number>;
  /** A MEMPOOL_FULL refusal's message. */
  fullMessage: string | undefined;
  /** Replies that were neither a result nor a JSON-RPC error (a dead or broken node). */
  broken: string[];
  /** getBlockCount latencies during the flood (ms). */
  blockCountMs: number[];
}

/** One batch of BATCH sendTo calls from the dev wallet to new wallets; the replies. */
async function sendBatch(sender: string): Promise<BatchReply[]> {
  const body = Array.from({ length: BATCH }, (_, id) => ({
    jsonrpc: '2.0',
    id,
    method: 'sendTo',
    params: {
      sender,
      passphrase: 'dev',
      receiver: addressFromHash160('CH', randomBytes(20)),
      amount: '0.001',
    },
  }));
  const { json } = await post(node.url, JSON.stringify(body));
  if (!Array.isArray(json)) throw new Error(`a batch answered ${JSON.stringify(json)}`);
  return json as BatchReply[];
}

/**
 * Batches of sendTo on CONNECTIONS loops, as an operator's burst sends them, until the pool has been
 * full for FULL_FOR_MS (however fast this machine takes them) or until `untilMs`.
 */
async function flood(untilMs: number): Promise<Flood> {
  const result: Flood = {
    acknowledged: 0,
    refusals: new Map(),
    fullMessage: undefined,
    broken: [],
    blockCountMs: [],
  };
  const sender = dev();
  let fullSince: number | undefined;
  const flooding = () =>
    Date.now() < untilMs && (fullSince === undefined || Date.now() < fullSince + FULL_FOR_MS);
  const loop = async () => {
    while (flooding()) {
      let replies: BatchReply[];
      try {
        replies = await sendBatch(sender);
      } catch (error) {
        result.broken.push(String(error));
        return;
      }
      let full = false;
      for (const reply of replies) {
        if (reply.result !== undefined) result.acknowledged++;
        else if (reply.error !== undefined) {
          const reason = reply.error.data?.reason ?? `code ${reply.error.code}`;
          result.refusals.set(reason, (result.refusals.get(reason) ?? 0) + 1);
          if (reason === 'MEMPOOL_FULL') {
            result.fullMessage ??= reply.error.message;
            fullSince ??= Date.now();
            full = true;
          }
        } else result.broken.push(JSON.stringify(reply));
      }
      // Told to retry later: a client waits a little before it does.
      if (full) await new Promise((resolve) => setTimeout(resolve, 100));
    }
  };
  const probe = async () => {
    while (flooding()) {
      const started = performance.now();
      await call<number>(node.url, 'getBlockCount');
      result.blockCountMs.push(performance.now() - started);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  };
  await Promise.all([...Array.from({ length: CONNECTIONS }, loop), probe()]);
  return result;
}

describe('a burst past the blocks', () => {
  it('fills the pool to its byte budget, is refused with MEMPOOL_FULL, and drains: the node lives and loses nothing', async () => {
    const before = await call<WalletInfo>(node.url, 'getWalletInfo', { wallet: dev() });
    const result = await flood(Date.now() + FLOOD_MAX_MS);

    // What a failure in CI needs to be understood: the flood's tallies.
    const tallies = JSON.stringify({
      acknowledged: result.acknowledged,
      refusals: Object.fromEntries(result.refusals),
      broken: result.broken.slice(0, 3),
      blockCounts: result.blockCountMs.length,
    });
    expect(node.child.exitCode, node.stderr()).toBeNull();
    expect(result.broken, tallies).toEqual([]);
    // Every refusal is the full pool's, and says to retry and why.
    expect([...result.refusals.keys()], tallies).toEqual(['MEMPOOL_FULL']);
    expect(result.refusals.get('MEMPOOL_FULL'), tallies).toBeGreaterThan(10);
    expect(result.fullMessage).toMatch(/mempool is full .* MB\): retry after the next block/);
    expect(result.acknowledged, tallies).toBeGreaterThan(5_000);
    expect(result.blockCountMs.length, tallies).toBeGreaterThan(10);
    expect(node.stderr()).not.toMatch(/heap budget/);

    // The blocks drain the pool; every acknowledged operation is in one.
    await waitFor(
      'the pool to drain',
      async () => {
        try {
          return (await call<number>(node.url, 'getPendingCount')) === 0;
        } catch (error) {
          // A connection reset right after the flood (seen once in three runs, cause not found
          // yet): asked again while the node lives; a node that died fails here with its output.
          if (node.child.exitCode === null) return false;
          throw new Error(`the node exited (${String(error)}): ${node.stderr().slice(-3000)}`);
        }
      },
      60_000,
    );
    const after = await call<WalletInfo>(node.url, 'getWalletInfo', { wallet: dev() });
    expect(after.n_operation - before.n_operation, tallies).toBe(result.acknowledged);
    expect(node.child.exitCode).toBeNull();
    // And it takes operations again (a client told to retry does, a moment later).
    await waitFor(
      'a sendTo to be taken again',
      async () =>
        (
          await rpc(node.url, 'sendTo', {
            sender: dev(),
            passphrase: 'dev',
            receiver: addressFromHash160('CH', randomBytes(20)),
            amount: '1',
          })
        ).result !== undefined,
      10_000,
    );
  }, 200_000);
});
