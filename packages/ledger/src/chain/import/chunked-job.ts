/**
 * The bookkeeping shared by every batch the verifier pool cuts into chunks, whether its items are
 * verified (verifier-pool.ts) or signed (sign-job.ts). The job's one buffer holds, in this order:
 * two Int32 counters (chunks claimed, chunks finished) that every thread updates atomically, one
 * result byte per item, and `itemBytes` per packed item (none when the job stays on the calling
 * thread). One buffer, because each shared buffer in a message costs its own serialisation, more
 * than the rest of the message. WORKER_CHUNKS_SOURCE reads the same layout.
 */
export class ChunkedJob {
  readonly chunks: number;
  /** The one buffer behind counters, ok and data, handed to the workers. */
  readonly buffer: ArrayBufferLike;
  readonly counters: Int32Array;
  /** One result byte per item: 1 when the item's work succeeded. */
  readonly ok: Uint8Array;
  /** The packed items, when the job is shared with the workers. */
  readonly data: Uint8Array | undefined;
  readonly done: Promise<void>;
  private resolveDone!: () => void;
  private ended = false;

  /**
   * `itemBytes` undefined: the job is not shared, its buffer holds only the counters and results
   * (an ArrayBuffer), and its items stay with the subclass.
   */
  constructor(
    readonly id: number,
    readonly count: number,
    /** Items per chunk. */
    readonly chunk: number,
    itemBytes: number | undefined,
  ) {
    this.chunks = Math.ceil(count / chunk);
    const buffer =
      itemBytes === undefined
        ? new ArrayBuffer(8 + count)
        : new SharedArrayBuffer(8 + count + count * itemBytes);
    this.buffer = buffer;
    this.counters = new Int32Array(buffer, 0, 2);
    this.ok = new Uint8Array(buffer, 8, count);
    this.data =
      itemBytes === undefined ? undefined : new Uint8Array(buffer, 8 + count, count * itemBytes);
    this.done = new Promise<void>((resolve) => {
      this.resolveDone = resolve;
    });
    if (this.chunks === 0) this.finish();
  }

  /** Every chunk's results are written (its "done" message may not have come yet). */
  get complete(): boolean {
    return Atomics.load(this.counters, 1) >= this.chunks;
  }

  /** `done` has resolved or is about to: nothing is left for any thread. */
  get finished(): boolean {
    return this.ended;
  }

  finish(): void {
    if (this.ended) return;
    this.ended = true;
    this.resolveDone();
  }

  /** Claims the next chunk for the calling thread; undefined when none is left to claim. */
  claim(): number | undefined {
    const chunk = Atomics.add(this.counters, 0, 1);
    return chunk < this.chunks ? chunk : undefined;
  }

  /** A chunk this thread claimed is written; the job finishes with its last. */
  chunkDone(): void {
    if (Atomics.add(this.counters, 1, 1) + 1 === this.chunks) this.finish();
  }

  /** No thread claims a chunk from now on (the workers failed). */
  closeClaims(): void {
    Atomics.store(this.counters, 0, this.chunks);
  }

  /** The items [from, to) of a chunk. */
  rangeOf(chunk: number): [number, number] {
    return [chunk * this.chunk, Math.min(this.count, (chunk + 1) * this.chunk)];
  }

  /** What a worker is told to take part (WORKER_CHUNKS_SOURCE's `runChunks` reads these). */
  message(): { id: number; count: number; chunk: number; buffer: ArrayBufferLike } {
    return { id: this.id, count: this.count, chunk: this.chunk, buffer: this.buffer };
  }
}

/**
 * The workers' half of ChunkedJob (part of WORKER_SOURCE in verifier-pool.ts): claims chunks of a
 * job until none is left, has `work(data, offset)` do each item (true when it succeeded) and
 * writes its result byte; whoever finishes the job's last chunk says so with the job's id.
 */
export const WORKER_CHUNKS_SOURCE = `
function runChunks({ id, count, chunk, buffer }, itemBytes, work) {
  const counters = new Int32Array(buffer, 0, 2);
  const ok = new Uint8Array(buffer, 8, count);
  const data = new Uint8Array(buffer, 8 + count, count * itemBytes);
  const chunks = Math.ceil(count / chunk);
  for (;;) {
    const c = Atomics.add(counters, 0, 1);
    if (c >= chunks) return;
    const to = Math.min(count, (c + 1) * chunk);
    for (let i = c * chunk; i < to; i++) ok[i] = work(data, i * itemBytes) ? 1 : 0;
    if (Atomics.add(counters, 1, 1) + 1 === chunks) parentPort.postMessage(id);
  }
}
`;
