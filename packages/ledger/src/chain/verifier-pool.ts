import { createRequire } from 'node:module';
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import type { Secp256k1Backend } from '@chain/crypto';

/** One signature check: 64-byte signature, 32-byte message hash, 33-byte public key. */
export interface VerifyItem {
  signature: Uint8Array;
  hash: Uint8Array;
  publicKey: Uint8Array;
}

// Runs in each worker: libsecp256k1's verify (it rejects high-S by itself) over packed arrays.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const binding = require(workerData.bindingPath);
parentPort.on('message', ({ id, count, sigs, hashes, keys }) => {
  const ok = new Uint8Array(count);
  for (let i = 0; i < count; i++) {
    try {
      ok[i] = binding.ecdsaVerify(
        sigs.subarray(i * 64, i * 64 + 64),
        hashes.subarray(i * 32, i * 32 + 32),
        keys.subarray(i * 33, i * 33 + 33),
      ) ? 1 : 0;
    } catch {
      ok[i] = 0;
    }
  }
  parentPort.postMessage({ id, ok }, [ok.buffer]);
});
`;

/** Below this many signatures a batch is verified on the calling thread alone. */
const PARALLEL_THRESHOLD = 128;

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

interface Job {
  resolve: (ok: Uint8Array) => void;
  reject: (error: unknown) => void;
}

/**
 * Verifies a block's signatures on the calling thread and on worker threads at once. Any worker
 * failure makes the pool fall back to the calling thread for good; results never depend on it.
 */
export class VerifierPool {
  private workers: Worker[] = [];
  private readonly jobs = new Map<number, Job>();
  private nextId = 0;
  private broken = false;

  constructor(
    private readonly local: Secp256k1Backend,
    private readonly threads: number,
  ) {}

  private start(): boolean {
    if (this.broken || this.threads === 0) return false;
    if (this.workers.length > 0) return true;
    const path = bindingPath();
    if (path === undefined) {
      this.broken = true;
      return false;
    }
    for (let i = 0; i < this.threads; i++) {
      const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { bindingPath: path } });
      worker.unref();
      worker.on('message', ({ id, ok }: { id: number; ok: Uint8Array }) => {
        const job = this.jobs.get(id);
        this.jobs.delete(id);
        if (this.jobs.size === 0) for (const w of this.workers) w.unref();
        job?.resolve(ok);
      });
      worker.on('error', (error) => this.fail(error));
      this.workers.push(worker);
    }
    return true;
  }

  private fail(error: unknown): void {
    this.broken = true;
    for (const job of this.jobs.values()) job.reject(error);
    this.jobs.clear();
    void this.close();
  }

  private verifyLocally(items: readonly VerifyItem[], out: boolean[], from: number, to: number) {
    for (let i = from; i < to; i++) {
      const item = items[i]!;
      out[i] = this.local.verify(item.signature, item.hash, item.publicKey);
    }
  }

  private dispatch(worker: Worker, items: readonly VerifyItem[], from: number, to: number) {
    const count = to - from;
    const sigs = new Uint8Array(count * 64);
    const hashes = new Uint8Array(count * 32);
    const keys = new Uint8Array(count * 33);
    for (let i = 0; i < count; i++) {
      const item = items[from + i]!;
      sigs.set(item.signature, i * 64);
      hashes.set(item.hash, i * 32);
      keys.set(item.publicKey, i * 33);
    }
    const id = this.nextId++;
    const result = new Promise<Uint8Array>((resolve, reject) => {
      this.jobs.set(id, { resolve, reject });
    });
    worker.ref();
    worker.postMessage({ id, count, sigs, hashes, keys }, [
      sigs.buffer,
      hashes.buffer,
      keys.buffer,
    ]);
    return result;
  }

  /** One boolean per item, in order. */
  async verify(items: readonly VerifyItem[]): Promise<boolean[]> {
    const out = new Array<boolean>(items.length).fill(false);
    if (items.length < PARALLEL_THRESHOLD || !this.start()) {
      this.verifyLocally(items, out, 0, items.length);
      return out;
    }
    const parts = this.workers.length + 1;
    const size = Math.ceil(items.length / parts);
    const pending: Array<{ from: number; to: number; result: Promise<Uint8Array> }> = [];
    for (let w = 0; w < this.workers.length; w++) {
      const from = (w + 1) * size;
      const to = Math.min(items.length, from + size);
      if (from < to)
        pending.push({ from, to, result: this.dispatch(this.workers[w]!, items, from, to) });
    }
    this.verifyLocally(items, out, 0, Math.min(size, items.length));
    for (const part of pending) {
      try {
        const ok = await part.result;
        for (let i = part.from; i < part.to; i++) out[i] = ok[i - part.from] === 1;
      } catch {
        this.verifyLocally(items, out, part.from, part.to);
      }
    }
    return out;
  }

  async close(): Promise<void> {
    const workers = this.workers;
    this.workers = [];
    await Promise.all(workers.map((w) => w.terminate()));
  }
}
