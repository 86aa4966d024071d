/**
 * The heap a pending operation really holds, against what the pool counts for it
 * (@chain/ledger's pendingEntryBytes): a chain on a temp dir, N transfers admitted, the heap used
 * after full collections before and after. Not a timing (no lock needed), so not a benchmark:
 *
 *   node --expose-gc --import tsx --conditions=@chain/source tools/bench/src/pending-entry-heap.ts
 *     [--operations 20000] [--receivers 100] [--raw]
 *
 * `--receivers` sets how many distinct receivers the transfers cycle through (as many as
 * operations: each adds an account and an address to the pending layer); `--raw` admits
 * pre-signed one-operation blobs (excuteRaw's path) instead of sign requests (sendTo's);
 * `--snapshots <prefix>` writes a heap snapshot at each of the two measures (`<prefix>-before` and
 * `-after.heapsnapshot`: what objects an entry holds, by constructor).
 * docs/performance.md, "Issue 44 item 5: CPU and heap per pending operation, session 25".
 */
import { parseArgs } from 'node:util';
import { writeHeapSnapshot } from 'node:v8';
import { type Chain, encodeRawOperations, type SignRequest } from '@chain/ledger';
import { transferRequest } from '@chain/ledger/codec';
import {
  COIN,
  fundAndActivate,
  namespacedWallet,
  openTempChain,
  transferTo,
} from '@chain/ledger/testing';

const SIGNERS = 16;
/** Submissions in flight together, as one event-loop turn of a loaded node takes them. */
const TURN = 64;

function collect(): Promise<void> {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc === undefined) throw new Error('run node with --expose-gc');
  gc();
  gc();
  return new Promise((resolve) => setTimeout(resolve, 50));
}

async function heapUsed(): Promise<number> {
  await collect();
  await collect();
  return process.memoryUsage().heapUsed;
}

/** Each request as excuteRaw would bring it: signed ahead into a blob of one operation. */
function rawBlobs(chain: Chain, requests: readonly SignRequest[]): Uint8Array[] {
  const next = new Map<string, { account: number; nOperation: number }>();
  return requests.map((request) => {
    let signer = next.get(request.signer);
    if (signer === undefined) {
      const wallet = chain.walletInfo(request.signer);
      signer = { account: Number(wallet.account), nOperation: Number(wallet.n_operation) };
      next.set(request.signer, signer);
    }
    signer.nOperation++;
    return encodeRawOperations([
      chain.buildSignedOperation({
        optype: request.optype,
        subtype: request.subtype ?? 0,
        signerAccount: signer.account,
        nOperation: signer.nOperation,
        privateKey: request.privateKey,
        body: request.body,
      }),
    ]);
  });
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      operations: { type: 'string', default: '20000' },
      receivers: { type: 'string' },
      raw: { type: 'boolean', default: false },
      snapshots: { type: 'string' },
    },
  });
  const operations = Number(values.operations);
  const receiverCount = Number(values.receivers ?? operations);
  const temp = await openTempChain({
    maxPendingBytes: 2 ** 31,
    maxPending: 10 * operations,
    dirPrefix: 'pending-entry-heap-',
  });
  try {
    const { chain } = temp;
    const senders = Array.from({ length: SIGNERS }, (_, i) => namespacedWallet('heap', `s${i}`));
    await fundAndActivate(chain, senders, 1000n * COIN);
    const receivers = Array.from(
      { length: receiverCount },
      (_, i) => namespacedWallet('heap-r', `r${i}`).address,
    );
    const requests = Array.from({ length: operations }, (_, i) => {
      const sender = senders[i % SIGNERS]!;
      return transferRequest(
        { signer: sender.address, privateKey: sender.privateKey },
        transferTo(receivers[i % receiverCount]!, 1n),
      );
    });
    const before = await heapUsed();
    if (values.snapshots) writeHeapSnapshot(`${values.snapshots}-before.heapsnapshot`);
    // Made after the first measure: once admitted, a blob is garbage or the operation's own bytes.
    let blobs = values.raw ? rawBlobs(chain, requests) : [];
    for (let i = 0; i < operations; i += TURN) {
      const turn = values.raw
        ? blobs.slice(i, i + TURN).flatMap((blob) => chain.submitRaw(blob, { local: true }))
        : requests.slice(i, i + TURN).map((request) => chain.signAndSubmit(request));
      await Promise.all(turn);
    }
    blobs = [];
    const after = await heapUsed();
    if (values.snapshots) writeHeapSnapshot(`${values.snapshots}-after.heapsnapshot`);
    const pending = chain.pendingCount();
    const counted = (chain as unknown as { mempool: { bytes: number } }).mempool.bytes;
    console.log(
      JSON.stringify({
        path: values.raw ? 'excuteRaw' : 'sendTo',
        operations,
        receivers: receiverCount,
        pending,
        heldPerEntry: Math.round((after - before) / pending),
        countedPerEntry: Math.round(counted / pending),
      }),
    );
  } finally {
    await temp.cleanup();
  }
}

await main();
