/**
 * A peer on the bench (issue 20 item 6): Anvil, Foundry's local Ethereum node, beside chain-node in
 * the same run, under the same loads. Runs only with `--peer anvil` (or `--only peer-anvil`).
 *
 * Every figure is the median of three rounds (reads, then writes, on the same two nodes).
 *
 * - Reads: getBlockCount against Anvil's eth_blockNumber, the same keep-alive load (autocannon).
 * - Pre-signed writes, every acknowledged one mined on each side: transfers signed in advance sent
 *   over the same number of keep-alive connections (one sender each, its operations in order),
 *   excuteRaw blobs of one operation, and blobs of 100 operations, each against Anvil's
 *   eth_sendRawTransaction (one transaction a call: Ethereum has no multi-transaction submission,
 *   and JSON-RPC batches of them left Anvil's automine with transactions it did not mine). A figure is operations per second from
 *   the first request until the last acknowledged operation is in a block (chain-node: nothing
 *   pending and the blocks hold exactly the acknowledged operations; Anvil, automining: its pool
 *   empty and the senders' nonces up by exactly the acknowledged transactions).
 */
import {
  type BenchContext,
  compareWithCeiling,
  defineBenchmark,
  type Figure,
  medianRound,
} from '../benchmark.js';
import {
  createSignerKeys,
  devWalletAddress,
  operationsMinedAfter,
  type SignerKey,
  waitUntilNothingPending,
} from '../dev-chain.js';
import { type LoadResult, runLoad } from '../load.js';
import { createNodeProcess, type NodeProcess } from '../node-process.js';
import { type AnvilProcess, createAnvilProcess } from '../peers/anvil-process.js';
import { acceptedOperations, presignedBlobs } from '../peers/chain-presigned.js';
import { anvilAccount, type EthAccount, signEthTransfers } from '../peers/eth-transactions.js';
import { type PresignedLoadResult, sendPresigned } from '../peers/presigned-load.js';

/** Issue 20's goals: reads at least Anvil's, pre-signed writes ten times Anvil's. */
export const READS_VS_ANVIL_TARGET = 1;
export const WRITES_VS_ANVIL_TARGET = 10;
/** Connections (and senders) of the write loads, the same on both sides. */
export const WRITE_CONNECTIONS = 32;
const BLOB_OPERATIONS = 100;
const BLOCK_TIME_MS = 200;
const SINK = '0x000000000000000000000000000000000000dEaD';

/** Operations per second from the first request until the last one was mined. */
function minedRate(load: PresignedLoadResult, minedAtMs: number): number {
  return load.acknowledged / Math.max(1e-3, (minedAtMs - load.startedAtMs) / 1000);
}

function checkClean(load: PresignedLoadResult, side: string): void {
  if (load.refused > 0) {
    throw new Error(`${side}: ${load.refused} requests refused: ${load.errorSamples.join('; ')}`);
  }
}

/** Sends `queues` to chain-node and waits until every acknowledged operation is mined. */
async function chainWrites(node: NodeProcess, queues: string[][]): Promise<number> {
  const client = node.client;
  const startHeight = (await client.block.getBlockCount()) - 1;
  const load = await sendPresigned(node.rpcUrl, queues, acceptedOperations);
  checkClean(load, 'chain-node excuteRaw');
  const minedAtMs = await waitUntilNothingPending(client, 120_000, 5);
  const { operations } = await operationsMinedAfter(client, startHeight);
  if (operations !== load.acknowledged) {
    throw new Error(`chain-node acknowledged ${load.acknowledged} operations, mined ${operations}`);
  }
  return minedRate(load, minedAtMs);
}

/** Anvil's nonces of `addresses`, summed. */
async function nonceSum(anvil: AnvilProcess, addresses: readonly string[]): Promise<number> {
  const nonces = await Promise.all(
    addresses.map((address) => anvil.call<string>('eth_getTransactionCount', [address, 'latest'])),
  );
  return nonces.reduce((sum, nonce) => sum + Number(nonce), 0);
}

/** Anvil's pool stopped draining: its automine left ready transactions unmined. */
class AnvilStalled extends Error {}

/** Seconds without a transaction mined after which Anvil's automine is taken as stalled. */
const STALL_SEC = 10;

/**
 * Sends `queues` to Anvil and waits until its pool is empty: every transaction mined. Throws
 * AnvilStalled when the pool stops draining (seen under a loaded host, fresh instance or not).
 */
async function anvilWrites(
  anvil: AnvilProcess,
  addresses: readonly string[],
  queues: string[][],
): Promise<number> {
  const before = await nonceSum(anvil, addresses);
  const load = await sendPresigned(anvil.url, queues, (reply) => {
    const replies = (Array.isArray(reply) ? reply : [reply]) as Array<{ result?: unknown }>;
    const bad = replies.find((entry) => typeof entry.result !== 'string');
    return bad === undefined ? replies.length : `refused: ${JSON.stringify(bad)}`;
  });
  checkClean(load, 'Anvil eth_sendRawTransaction');
  let left = Number.POSITIVE_INFINITY;
  let progressAt = Date.now();
  for (;;) {
    const pool = await anvil.call<{ pending: string; queued: string }>('txpool_status');
    const now = Number(pool.pending) + Number(pool.queued);
    if (now === 0) break;
    if (now < left) {
      left = now;
      progressAt = Date.now();
    } else if (Date.now() - progressAt > STALL_SEC * 1000) {
      throw new AnvilStalled(`Anvil's pool stopped draining: ${JSON.stringify(pool)}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  const minedAtMs = Date.now();
  const mined = (await nonceSum(anvil, addresses)) - before;
  if (mined !== load.acknowledged) {
    throw new Error(`Anvil acknowledged ${load.acknowledged} transactions, mined ${mined}`);
  }
  return minedRate(load, minedAtMs);
}

/** Times a round's Anvil writes may be made again after a stall before the run fails. */
const ANVIL_ATTEMPTS = 3;

/**
 * Anvil's write rate for this round: transfers signed from each account's nonce on chain. A stalled
 * attempt is not measured: that Anvil is replaced by a fresh one (a stalled automine was seen to
 * mine nothing more, evm_mine or not) and the writes are made again. `sides.anvil` is the one in use.
 */
async function anvilRound(
  ctx: BenchContext,
  sides: { anvil: AnvilProcess; accounts: readonly EthAccount[] },
  count: number,
  label: string,
): Promise<number> {
  const addresses = sides.accounts.map((account) => account.address);
  for (let attempt = 1; ; attempt++) {
    const anvil = sides.anvil;
    const nonces = await Promise.all(
      addresses.map((address) =>
        anvil.call<string>('eth_getTransactionCount', [address, 'latest']),
      ),
    );
    ctx.log(`${label} writes: signing ${WRITE_CONNECTIONS} x ${count} Anvil transactions`);
    const queues = sides.accounts.map((account, a) =>
      signEthTransfers(account, SINK, Number(nonces[a]), count).map((tx, i) =>
        JSON.stringify(rpcCall('eth_sendRawTransaction', i, [tx])),
      ),
    );
    ctx.log(`${label} writes: Anvil eth_sendRawTransaction`);
    try {
      return await anvilWrites(anvil, addresses, queues);
    } catch (error) {
      if (!(error instanceof AnvilStalled) || attempt === ANVIL_ATTEMPTS) throw error;
      ctx.log(`${label} ${error.message}; a fresh Anvil makes the writes again (not measured)`);
      await anvil.close();
      sides.anvil = createAnvilProcess({ accounts: WRITE_CONNECTIONS });
      await sides.anvil.start();
    }
  }
}

function rpcCall(method: string, id: number, params: unknown): object {
  return { jsonrpc: '2.0', id, method, params };
}

/** Rounds of every figure: Anvil's own write rate moved from 820 to 7,014 tx/s between runs. */
export const ROUNDS = 3;

/** One round of the three comparisons, the nodes already running and the senders funded. */
async function round(
  ctx: BenchContext,
  sides: { node: NodeProcess; anvil: AnvilProcess; senders: SignerKey[]; accounts: EthAccount[] },
  index: number,
): Promise<{ reads: Figure; singles: Figure; blobs: Figure }> {
  const { node, senders } = sides;
  const anvil = sides.anvil;
  const label = `  round ${index + 1}/${ROUNDS}`;
  // Each round reads for a third of --duration (at least 2 s), so that three rounds take about
  // what one took; the side read first alternates between rounds.
  const settings = {
    connections: ctx.connections,
    durationSec: Math.max(2, ctx.durationSec / ROUNDS),
    warmupSec: ctx.warmupSec,
  };
  const readAnvil = () =>
    runLoad({
      ...settings,
      url: anvil.url,
      body: JSON.stringify(rpcCall('eth_blockNumber', 1, [])),
    });
  const readNode = () =>
    runLoad({
      ...settings,
      url: node.rpcUrl,
      body: JSON.stringify(rpcCall('getBlockCount', 1, {})),
    });
  ctx.log(
    `${label} reads: ${ctx.connections} connections, ${settings.durationSec.toFixed(1)} s a side`,
  );
  let anvilReads: LoadResult;
  let nodeReads: LoadResult;
  if (index % 2 === 0) {
    anvilReads = await readAnvil();
    nodeReads = await readNode();
  } else {
    nodeReads = await readNode();
    anvilReads = await readAnvil();
  }
  const reads = compareWithCeiling({
    name: 'vs Anvil: getBlockCount / eth_blockNumber',
    value: nodeReads.requestsPerSec,
    unit: 'calls/s',
    ceiling: anvilReads.requestsPerSec,
    ceilingName: 'Anvil eth_blockNumber, same load',
    target: READS_VS_ANVIL_TARGET,
    latency: {
      p50Ms: nodeReads.p50Ms,
      p99Ms: nodeReads.p99Ms,
      ceilingP50Ms: anvilReads.p50Ms,
      ceilingP99Ms: anvilReads.p99Ms,
    },
  });

  // Pre-signed writes: everything signed before the clock starts.
  const singles = Math.max(20, Math.round(30 * ctx.durationSec));
  const blobs = Math.max(2, Math.round(ctx.durationSec));
  const anvilSingles = Math.max(10, Math.round(8 * ctx.durationSec));
  const receiver = devWalletAddress();
  ctx.log(
    `${label} writes: signing ${WRITE_CONNECTIONS} x ${singles} single-operation blobs, then ${WRITE_CONNECTIONS} x ${blobs} blobs of ${BLOB_OPERATIONS}`,
  );
  const singleQueues: string[][] = [];
  for (const sender of senders) {
    singleQueues.push(await presignedBlobs(node.client, sender, receiver, singles, 1));
  }
  ctx.log(`${label} writes: chain-node excuteRaw, single operations`);
  const nodeSingles = await chainWrites(node, singleQueues);
  const blobQueues: string[][] = [];
  for (const sender of senders) {
    blobQueues.push(await presignedBlobs(node.client, sender, receiver, blobs, BLOB_OPERATIONS));
  }
  ctx.log(`${label} writes: chain-node excuteRaw, blobs of ${BLOB_OPERATIONS}`);
  const nodeBlobs = await chainWrites(node, blobQueues);

  const anvilRate = await anvilRound(ctx, sides, anvilSingles, label);
  const ceilingName = `Anvil eth_sendRawTransaction, ${WRITE_CONNECTIONS} connections`;
  const result = {
    reads,
    singles: compareWithCeiling({
      name: 'vs Anvil: pre-signed excuteRaw (1 op) / eth_sendRawTransaction, all mined',
      value: nodeSingles,
      unit: 'ops/s',
      ceiling: anvilRate,
      ceilingName,
      target: WRITES_VS_ANVIL_TARGET,
    }),
    blobs: compareWithCeiling({
      name: `vs Anvil: pre-signed excuteRaw (${BLOB_OPERATIONS} ops) / eth_sendRawTransaction, all mined`,
      value: nodeBlobs,
      unit: 'ops/s',
      ceiling: anvilRate,
      ceilingName,
      target: WRITES_VS_ANVIL_TARGET,
    }),
  };
  ctx.log(
    `${label}: reads ${reads.ratio.toFixed(3)}, excuteRaw 1 op ${result.singles.ratio.toFixed(2)}, ` +
      `${BLOB_OPERATIONS} ops ${result.blobs.ratio.toFixed(2)} (Anvil ${Math.round(anvilRate)} tx/s)`,
  );
  return result;
}

export default defineBenchmark({
  name: 'peer-anvil',
  description: `Anvil beside chain-node: reads, and pre-signed writes all mined, median of ${ROUNDS} rounds (--peer anvil)`,
  peer: 'anvil',
  async run(ctx): Promise<Figure[]> {
    const node = createNodeProcess({
      args: ['--block-time', String(BLOCK_TIME_MS), '--log-level', 'warn'],
    });
    const sides = {
      node,
      anvil: createAnvilProcess({ accounts: WRITE_CONNECTIONS }),
      senders: [] as SignerKey[],
      accounts: Array.from({ length: WRITE_CONNECTIONS }, (_, i) => anvilAccount(i)),
    };
    try {
      await node.start();
      await sides.anvil.start();
      ctx.log(`  writes: funding and activating ${WRITE_CONNECTIONS} chain-node senders`);
      sides.senders = await createSignerKeys(node.client, WRITE_CONNECTIONS, '1000000');
      const rounds = [];
      for (let index = 0; index < ROUNDS; index++) rounds.push(await round(ctx, sides, index));
      return [
        medianRound(rounds.map((r) => r.reads)),
        medianRound(rounds.map((r) => r.singles)),
        medianRound(rounds.map((r) => r.blobs)),
      ];
    } finally {
      await sides.anvil.close();
      await node.close();
    }
  },
});
