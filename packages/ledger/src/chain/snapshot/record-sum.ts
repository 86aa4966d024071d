import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { type Hashes, LtHash } from '@chain/crypto';
import { VectorSum } from '../../state/state-lattice';
import { entriesOfRecords, taggedEntries } from '../storage/state-records';

/**
 * The state-root vector of a snapshot's records, summed as they come (RecordsCheck). Hashing
 * an entry to its lattice element is most of the CPU of checking a snapshot (about 1.3 us an
 * entry), so it runs on a thread of its own where it can: the joining node's thread then takes
 * the chunks in and writes them meanwhile.
 */
export interface RecordSum {
  add(records: readonly Uint8Array[]): void;
  /** The vector of every record added; the sum is over after it. */
  total(): Promise<LtHash>;
  /** Stops its thread, if any (idempotent). */
  close(): void;
}

/** A thread's sum when one can be started, else a sum on the calling thread. */
export function recordSum(hashes: Hashes): RecordSum {
  const url = cryptoUrl();
  if (url !== undefined) {
    try {
      return new ThreadSum(url);
    } catch {
      // No worker threads here: the calling thread sums.
    }
  }
  return new InlineSum(hashes);
}

export class InlineSum implements RecordSum {
  private readonly sum: VectorSum;

  constructor(hashes: Hashes) {
    this.sum = new VectorSum(LtHash.identity(), hashes);
  }

  add(records: readonly Uint8Array[]): void {
    for (const entry of entriesOfRecords(records)) this.sum.add(entry);
  }

  async total(): Promise<LtHash> {
    return this.sum.flush();
  }

  close(): void {}
}

// Runs in the thread: each message is a buffer of entries (their lengths beside it) added to the
// vector, in the order they came; `null` asks for the vector. It loads @chain/crypto's build.
const THREAD_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const loaded = import(workerData.cryptoUrl).then((crypto) => ({ crypto, vector: crypto.LtHash.identity() }));
parentPort.on('message', (message) => {
  loaded.then(({ crypto, vector }) => {
    if (message === null) return parentPort.postMessage({ vector: vector.toBytes() });
    const entries = [];
    let at = 0;
    for (const length of message.lengths) {
      entries.push(message.bytes.subarray(at, at + length));
      at += length;
    }
    vector.update(entries, [], crypto.pureHashes);
  }).catch((error) => parentPort.postMessage({ error: String(error) }));
});
`;

export class ThreadSum implements RecordSum {
  private readonly worker: Worker;
  /** The first failure of the thread: a sum that skipped entries must never be taken. */
  private failure: Error | undefined;
  private result: Promise<LtHash> | undefined;
  private settle: ((vector: Uint8Array | undefined) => void) | undefined;
  private closed = false;

  constructor(url: string) {
    // No flags of the parent's (a test runner's source conditions): the thread loads the build.
    this.worker = new Worker(THREAD_SOURCE, {
      eval: true,
      execArgv: [],
      workerData: { cryptoUrl: url },
    });
    this.worker.unref();
    this.worker.on('error', (error) => this.fail(error));
    this.worker.on('message', (message: { vector?: Uint8Array; error?: string }) => {
      if (message.vector === undefined) this.fail(new Error(`state sum: ${message.error}`));
      else this.settle?.(message.vector);
    });
  }

  add(records: readonly Uint8Array[]): void {
    const { bytes, lengths } = taggedEntries(records);
    // Fresh buffers: they move to the thread without a copy.
    this.worker.postMessage({ bytes, lengths }, [
      bytes.buffer as ArrayBuffer,
      lengths.buffer as ArrayBuffer,
    ]);
  }

  total(): Promise<LtHash> {
    this.result ??= new Promise<LtHash>((resolve, reject) => {
      this.settle = (vector) => {
        if (this.failure !== undefined || vector === undefined) reject(this.failure);
        else resolve(LtHash.fromBytes(vector));
      };
      if (this.failure !== undefined) this.settle(undefined);
      else this.worker.postMessage(null);
    }).finally(() => this.close());
    return this.result;
  }

  private fail(error: Error): void {
    this.failure ??= error;
    this.settle?.(undefined);
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    void this.worker.terminate();
  }
}

/** `@chain/crypto`'s build, which the thread imports; undefined when it is not built. */
function cryptoUrl(): string | undefined {
  try {
    const require = createRequire(import.meta.url);
    const path = join(dirname(require.resolve('@chain/crypto/package.json')), 'dist', 'index.js');
    require.resolve(path);
    return pathToFileURL(path).href;
  } catch {
    return undefined;
  }
}
