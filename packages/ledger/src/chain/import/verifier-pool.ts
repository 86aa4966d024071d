import { createRequire } from 'node:module';
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import type { Secp256k1Backend } from '@chain/crypto';
import { TimeSlice } from '../execution/time-slice';
import { ChunkedJob, WORKER_CHUNKS_SOURCE } from './chunked-job';
import { type SignItem, SignJob, signHere, WORKER_SIGN_SOURCE } from './sign-job';

/** One signature check: 64-byte signature, 32-byte message hash, 33-byte public key. */
export interface VerifyItem {
  signature: Uint8Array;
  hash: Uint8Array;
  publicKey: Uint8Array;
}

// Runs in each worker: takes chunks of a job the way the calling thread does (`runChunks`,
// chunked-job.ts), verifies them with libsecp256k1 (it rejects high-S by itself) and writes the
// results into the job's shared result array. A message with `sign` set is a batch to sign
// (sign-job.ts). 'stop' closes its port, so that it ends by itself: a worker terminated while
// inside libsecp256k1's binding aborts the whole process (the binding throws a C++ exception when
// it cannot return to a terminating thread).
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const binding = require(workerData.bindingPath);
parentPort.on('message', (message) => {
  if (message === 'stop') return parentPort.close();
  if (message.sign) return signJob(message);
  runChunks(message, 161, (data, o) => {
    try {
      return binding.ecdsaVerify(data.subarray(o, o + 64), data.subarray(o + 64, o + 96), data.subarray(o + 96, o + 161));
    } catch {
      return false;
    }
  });
});
${WORKER_CHUNKS_SOURCE}
${WORKER_SIGN_SOURCE}
`;

/**
 * Packed item: 64-byte signature, 32-byte hash, the key uncompressed in 65 bytes (the worker source
 * says 161 too): libsecp256k1 verifies about 10% faster when it need not decompress the key.
 */
const ITEM_BYTES = 161;
const KEY_BYTES = 65;

/** How long a stopping worker may take to finish its chunk before it is terminated anyway. */
const STOP_TIMEOUT_MS = 10_000;

/** Below this many signatures a batch is verified on the calling thread alone. */
const PARALLEL_THRESHOLD = 128;
/**
 * Signatures per unit of work (about 1.5 ms here): small enough that the threads finish a job
 * together, large enough that claiming costs nothing.
 */
const CHUNK = 32;

/** Worker threads for the libsecp256k1 binding that `@chain/crypto/native` uses. */
function bindingPath(): string | undefined {
  try {
    const require = createRequire(import.meta.url);
    return createRequire(require.resolve('@chain/crypto/package.json')).resolve(
      'secp256k1/bindings',
    );
  } catch {
    return undefined;
  }
}

export function defaultVerifyThreads(): number {
  return Math.max(0, Math.min(availableParallelism() - 1, 3));
}

/**
 * A batch of signatures to verify. Handed to workers, it lives in shared memory (ChunkedJob):
 * signature, hash and key of each item packed. A packed job keeps no reference to its items:
 * batches queued for seconds would otherwise keep them out of the young generation.
 */
class VerifyJob extends ChunkedJob {
  /** The items and their verifying keys, when not packed in `data`. */
  readonly items: readonly VerifyItem[];
  readonly keys: readonly (Uint8Array | null)[];

  /**
   * `keys[i]` is the key item i is verified against: its public key as the verifying backend
   * prefers it (uncompressed for libsecp256k1), null when that is no point at all.
   */
  constructor(
    id: number,
    items: readonly VerifyItem[],
    keys: readonly (Uint8Array | null)[],
    shared: boolean,
    chunk: number,
  ) {
    super(id, items.length, chunk, shared ? ITEM_BYTES : undefined);
    const data = this.data;
    if (data === undefined) {
      this.items = items;
      this.keys = keys;
      return;
    }
    for (let i = 0; i < items.length; i++) {
      const item = items[i]!;
      const key = keys[i];
      const o = i * ITEM_BYTES;
      // A field of the wrong length is left zero there, which never verifies.
      if (item.signature.length === 64 && item.hash.length === 32 && key?.length === KEY_BYTES) {
        data.set(item.signature, o);
        data.set(item.hash, o + 64);
        data.set(key, o + 96);
      }
    }
    this.items = [];
    this.keys = [];
  }
}

/**
 * How a batch is shared out (defaults: PARALLEL_THRESHOLD, CHUNK). A caller waiting on a small batch
 * (submissions of one event-loop turn, a few dozen) shares it from fewer signatures, in smaller
 * chunks, so that the workers take part at all.
 */
interface VerifySplit {
  /** Below this many signatures the calling thread verifies alone. */
  parallelFrom?: number;
  /** Signatures per chunk. */
  chunk?: number;
}

/**
 * A signature batch handed to the worker threads by `background()`; `settle()` has the calling
 * thread verify the chunks the workers have not claimed yet, then waits for the rest.
 */
interface BackgroundVerification {
  settle(): Promise<boolean[]>;
}

/**
 * Verifies signatures on worker threads and on the calling thread. A batch lives in shared memory,
 * cut into chunks that each thread claims with an atomic counter, so the workers never wait for the
 * calling thread (which may be busy applying a block) and a caller waiting for a batch verifies its
 * unclaimed chunks itself: every thread stays busy and a batch ends when its last chunk does.
 * Background batches (`background()`, e.g. the blocks queued behind the one being applied) are
 * worked on by the workers alone until they are settled. Any worker failure makes the pool fall
 * back to the calling thread for good; results never depend on it.
 */
export class VerifierPool {
  private workers: Worker[] = [];
  private readonly exits = new Map<Worker, Promise<void>>();
  private readonly jobs = new Map<number, VerifyJob>();
  private readonly signJobs = new Map<number, SignJob>();
  private nextId = 0;
  private broken = false;
  private readonly expanded = new WeakMap<Uint8Array, Uint8Array | null>();

  constructor(
    private readonly local: Secp256k1Backend,
    private readonly threads: number,
  ) {}

  /** Workers verify expanded keys with libsecp256k1: only a backend that expands keys uses them. */
  private start(): boolean {
    if (this.broken || this.threads === 0 || this.local.expandPublicKey === undefined) return false;
    if (this.workers.length > 0) return true;
    const path = bindingPath();
    if (path === undefined) {
      this.broken = true;
      return false;
    }
    for (let i = 0; i < this.threads; i++) {
      const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { bindingPath: path } });
      worker.unref();
      worker.on('message', (id: number) => (this.jobs.get(id) ?? this.signJobs.get(id))?.finish());
      worker.on('error', () => void this.fail());
      this.exits.set(worker, new Promise((resolve) => worker.once('exit', () => resolve())));
      this.workers.push(worker);
    }
    return true;
  }

  /**
   * Workers stop; every batch they had not finished is verified on the calling thread (a worker
   * still finishing a chunk writes the same results). They are told to stop and left to end, not
   * terminated: see WORKER_SOURCE.
   */
  private fail(): Promise<unknown> {
    this.broken = true;
    const workers = this.workers;
    this.workers = [];
    // No thread claims a chunk from now on.
    for (const job of this.jobs.values()) job.closeClaims();
    for (const job of this.jobs.values()) {
      // A complete job's results are all written; its "done" message may just not have come.
      if (!job.complete) for (let c = 0; c < job.chunks; c++) this.verifyChunk(job, c);
      job.finish();
    }
    for (const job of this.signJobs.values()) if (!job.complete) job.signLocally(this.local);
    return Promise.all(workers.map((worker) => this.stopWorker(worker)));
  }

  private async stopWorker(worker: Worker): Promise<void> {
    const exited = this.exits.get(worker);
    this.exits.delete(worker);
    // Held until it has ended: the caller awaits it, and may have nothing else keeping it running.
    worker.ref();
    worker.postMessage('stop');
    let timer: ReturnType<typeof setTimeout> | undefined;
    const stuck = new Promise<'stuck'>((resolve) => {
      timer = setTimeout(() => resolve('stuck'), STOP_TIMEOUT_MS);
      timer.unref();
    });
    if ((await Promise.race([exited, stuck])) === 'stuck') await worker.terminate();
    clearTimeout(timer);
  }

  private verifyChunk(job: VerifyJob, chunk: number): void {
    const [from, to] = job.rangeOf(chunk);
    const data = job.data;
    for (let i = from; i < to; i++) {
      let valid: boolean;
      if (data !== undefined) {
        const o = i * ITEM_BYTES;
        valid = this.local.verify(
          data.subarray(o, o + 64),
          data.subarray(o + 64, o + 96),
          data.subarray(o + 96, o + ITEM_BYTES),
        );
      } else {
        const item = job.items[i]!;
        const key = job.keys[i];
        valid = key != null && this.local.verify(item.signature, item.hash, key);
      }
      job.ok[i] = valid ? 1 : 0;
    }
  }

  /**
   * The key to verify against, as the backend prefers it. Expanded keys are remembered per key
   * object: an account's key is one object for as long as the account is loaded, so a signer's
   * key is expanded once, not once per operation.
   */
  private verifyingKey(publicKey: Uint8Array): Uint8Array | null {
    if (this.local.expandPublicKey === undefined) return publicKey;
    let expanded = this.expanded.get(publicKey);
    if (expanded === undefined) {
      expanded = this.local.expandPublicKey(publicKey);
      this.expanded.set(publicKey, expanded);
    }
    return expanded;
  }

  private submit(items: readonly VerifyItem[], split: VerifySplit = {}): VerifyJob {
    const parallel = items.length >= (split.parallelFrom ?? PARALLEL_THRESHOLD) && this.start();
    const keys = items.map((item) => this.verifyingKey(item.publicKey));
    const job = new VerifyJob(this.nextId++, items, keys, parallel, split.chunk ?? CHUNK);
    if (!parallel || job.finished) return job;
    this.jobs.set(job.id, job);
    this.postToWorkers(job.message());
    return job;
  }

  /**
   * The calling thread claims and verifies the job's remaining chunks, then waits for the rest. It
   * gives the event loop back between chunks once its time slice is spent: a block of 10,000
   * signatures is about 150 ms of this thread's share.
   */
  private async help(job: VerifyJob): Promise<boolean[]> {
    const slice = new TimeSlice();
    while (this.helpOnce(job)) await slice.pause();
    await job.done;
    this.jobs.delete(job.id);
    this.unrefWhenIdle();
    return Array.from(job.ok, (v) => v === 1);
  }

  /** Idle workers do not keep the process running. */
  private unrefWhenIdle(): void {
    if (this.jobs.size === 0 && this.signJobs.size === 0) {
      for (const worker of this.workers) worker.unref();
    }
  }

  /** Claims and verifies one chunk of the job; false when none was left to claim. */
  private helpOnce(job: VerifyJob): boolean {
    const chunk = job.claim();
    if (chunk === undefined) return false;
    this.verifyChunk(job, chunk);
    job.chunkDone();
    return true;
  }

  /** Wakes every worker for a job (held referenced until the pool is idle again). */
  private postToWorkers(message: object): void {
    for (const worker of this.workers) {
      worker.ref();
      worker.postMessage(message);
    }
  }

  /**
   * Until `pending` settles, the calling thread verifies chunks of the background batches (oldest
   * first) one at a time, looking at the event loop between two: for a thread that would otherwise
   * wait, e.g. for the disk to sync a block while the blocks queued behind it are checked.
   */
  async helpWhile<T>(pending: Promise<T>): Promise<T> {
    let settled = false;
    const done = pending.finally(() => {
      settled = true;
    });
    while (!settled && this.helpAnyOnce()) {
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
    return done;
  }

  private helpAnyOnce(): boolean {
    for (const job of this.jobs.values()) if (this.helpOnce(job)) return true;
    return false;
  }

  /** One boolean per item, in order; the calling thread takes part. */
  async verify(items: readonly VerifyItem[], split?: VerifySplit): Promise<boolean[]> {
    return this.help(this.submit(items, split));
  }

  /**
   * Starts verifying on the worker threads only (the calling thread goes on with other work);
   * `settle()` brings the calling thread in and resolves with one boolean per item.
   */
  background(items: readonly VerifyItem[], split?: VerifySplit): BackgroundVerification {
    const job = this.submit(items, split);
    return { settle: () => this.help(job) };
  }

  /**
   * Signs each item (a message hash with a private key) on the worker threads alone, so that the
   * calling thread goes on with other work; one signature per item, in order, null where the key
   * cannot sign. The keys cross to the workers in shared memory that the workers zero once they
   * have signed. Without threads (or below `split.parallelFrom` items) the calling thread signs,
   * before this returns.
   */
  async sign(items: readonly SignItem[], split: VerifySplit = {}): Promise<(Uint8Array | null)[]> {
    if (items.length < (split.parallelFrom ?? 1) || !this.start()) {
      return signHere(this.local, items);
    }
    const job = new SignJob(
      this.nextId++,
      items,
      split.chunk ?? Math.ceil(items.length / this.workers.length),
    );
    this.signJobs.set(job.id, job);
    this.postToWorkers({ sign: true, ...job.message() });
    await job.done;
    this.signJobs.delete(job.id);
    this.unrefWhenIdle();
    return job.signatures();
  }

  async close(): Promise<void> {
    await this.fail();
  }
}

/**
 * Signatures of small blocks queued for import, handed to the worker threads this many at a time:
 * one hand-over (a postMessage that wakes a worker: about 0.1 ms of the handing thread) for several
 * blocks, where one per block cost more than the two or three verifies it took off that thread.
 */
export const SMALL_AHEAD_ITEMS = 16;

/** One hand-over of several small blocks' signatures (SmallAheadBatches). */
class SmallAheadBatch {
  readonly items: VerifyItem[] = [];
  private verification: BackgroundVerification | undefined;
  private results: Promise<boolean[]> | undefined;

  constructor(private readonly pool: VerifierPool) {}

  /** Hands the items to the workers; none may be added after. */
  start(): void {
    this.verification ??= this.pool.background(this.items, {
      parallelFrom: 1,
      chunk: Math.ceil(this.items.length / 4),
    });
  }

  settle(): Promise<boolean[]> {
    this.start();
    this.results ??= this.verification!.settle();
    return this.results;
  }
}

/**
 * Collects the signatures of small blocks queued for import into batches of SMALL_AHEAD_ITEMS,
 * each handed to the worker threads once full, or when a block of it is settled (its turn came).
 */
export class SmallAheadBatches {
  private open: SmallAheadBatch | undefined;

  constructor(
    private readonly pool: VerifierPool,
    private readonly size = SMALL_AHEAD_ITEMS,
  ) {}

  /** Adds a block's items to the open batch; the function resolves with their results. */
  add(items: readonly VerifyItem[]): () => Promise<boolean[]> {
    const batch = this.open ?? new SmallAheadBatch(this.pool);
    this.open = batch;
    const from = batch.items.length;
    batch.items.push(...items);
    if (batch.items.length >= this.size) this.close(batch);
    return async () => {
      this.close(batch);
      return (await batch.settle()).slice(from, from + items.length);
    };
  }

  private close(batch: SmallAheadBatch): void {
    if (this.open === batch) this.open = undefined;
    batch.start();
  }
}

/** What verifyBlockAhead needs from the chain. */
export interface AheadContext {
  pool: VerifierPool;
  /** Where the signatures of blocks too small for a hand-over of their own go. */
  small: SmallAheadBatches;
  /**
   * The signature check an encoded operation needs in the committed state; null when that state
   * does not know its key yet or the bytes are malformed (the block's full check deals with both).
   */
  itemOf(operation: Uint8Array): VerifyItem | null;
}

/** What a block queued for import had verified ahead (see verifyBlockAhead). */
export interface VerifiedAhead {
  /** `verifiedKeys[i]`: the key operation i's signature verified against. */
  readonly verifiedKeys: (Uint8Array | undefined)[];
  /** The key the block's producer signature verified against. */
  producerKey?: Uint8Array;
}

/**
 * Starts checking the signatures of a block queued for import on the worker threads, while the
 * blocks before it apply: its operations' and, when `producer` is given, the producer's signature
 * of the block. `settle()` records the keys they verified against in `ahead`, where the block's own
 * check then finds them. The operations are not decoded here (a decoded operation kept for blocks
 * would outlive the collector's young generation): their headers say the signer. A recorded key
 * counts only when it is the key needed when the block applies, so nothing here can make a block
 * pass that the full check would refuse. A block of fewer than PARALLEL_THRESHOLD signatures joins
 * others in a batch (SmallAheadBatches): handing each to a sleeping worker alone (a postMessage
 * that wakes it) cost the handing thread more than its two or three verifies (measured on a sync
 * of one-operation blocks: 122 us a block in postMessage against 40 us a verify).
 */
export function verifyBlockAhead(
  operations: readonly Uint8Array[],
  producerOf: () => VerifyItem | null,
  ahead: VerifiedAhead,
  ctx: AheadContext,
): { settle(): Promise<void> } {
  const items: VerifyItem[] = [];
  const positions: number[] = [];
  for (let i = 0; i < operations.length; i++) {
    const item = ctx.itemOf(operations[i]!);
    if (item === null) continue;
    items.push(item);
    positions.push(i);
  }
  const producer = producerOf();
  if (producer !== null) items.push(producer);
  const verified =
    items.length < PARALLEL_THRESHOLD ? ctx.small.add(items) : background(ctx.pool, items);
  return {
    async settle() {
      const results = await verified();
      for (let j = 0; j < positions.length; j++) {
        if (results[j]) ahead.verifiedKeys[positions[j]!] = items[j]!.publicKey;
      }
      if (producer !== null && results[positions.length]) ahead.producerKey = producer.publicKey;
    },
  };
}

function background(pool: VerifierPool, items: readonly VerifyItem[]): () => Promise<boolean[]> {
  const verification = pool.background(items);
  return () => verification.settle();
}
