import type { ChunkedJob } from './chunked-job';

/**
 * The verifier pool's job board: shared memory the workers hold from their start, with a few slots
 * a job is laid out in (ChunkedJob's layout, at the slot's offset). Handing a job over is writing
 * it into a free slot, publishing it and an `Atomics.notify` of the workers, which wait on the
 * board's doorbell with `Atomics.wait` between jobs: no message, no structured clone, no wake of a
 * worker's event loop. A job that finds no free slot, or does not fit one, goes by message as
 * before (the workers read messages between two waits: every message is followed by a ring).
 *
 * The control words (Int32): the doorbell, the stop flag, then per slot its published job (0 when
 * none), how many workers are inside it, and the job's id, count, chunk and kind. A slot is reused
 * only once it is unpublished and no worker is inside it (a worker counts itself in before it reads
 * the published word, so one that reads a job's header reads all of it, and the header is not
 * rewritten while it is inside). docs/decisions.md, "Verifier jobs on a board in shared memory".
 */
export const BOARD_SLOTS = 4;
/** Bytes of a slot: 3,200 verify items (161 bytes each) or 4,000 sign items (128 bytes). */
export const SLOT_BYTES = 512 * 1024;

/** What a slot's job asks of the worker (WORKER_BOARD_SOURCE routes on it). */
export const JobKind = { verify: 1, sign: 2 } as const;
export type JobKind = (typeof JobKind)[keyof typeof JobKind];

const DOORBELL = 0;
const STOP = 1;
const HEADER_INTS = 6;
/** A slot's words, from its header's first: published, inside, id, count, chunk, kind. */
const PUBLISHED = 0;
const INSIDE = 1;
const ID = 2;
const COUNT = 3;
const CHUNK = 4;
const KIND = 5;
/** The control words take the board's first page: the slots start after it. */
const CONTROL_BYTES = 4096;

export class JobBoard {
  readonly buffer: SharedArrayBuffer;
  private readonly control: Int32Array;
  /** Slots a job holds (this thread's view: the workers may still be inside a released one). */
  private readonly held: boolean[];
  private nextPublished = 1;

  /** Fixed: WORKER_BOARD_SOURCE is written for this many slots of this size. */
  readonly slots = BOARD_SLOTS;
  readonly slotBytes = SLOT_BYTES;

  constructor() {
    this.buffer = new SharedArrayBuffer(CONTROL_BYTES + this.slots * this.slotBytes);
    this.control = new Int32Array(this.buffer, 0, 2 + this.slots * HEADER_INTS);
    this.held = new Array<boolean>(this.slots).fill(false);
  }

  /**
   * A slot for a job whose layout takes `bytes`, held until `release`; undefined when none is
   * free or the job does not fit (it then goes by message).
   */
  acquire(bytes: number): number | undefined {
    if (bytes > this.slotBytes) return undefined;
    for (let slot = 0; slot < this.slots; slot++) {
      if (this.held[slot]) continue;
      // Unpublished at release; a worker counted in now reads that, and leaves it.
      if (Atomics.load(this.control, header(slot) + INSIDE) !== 0) continue;
      this.held[slot] = true;
      return slot;
    }
    return undefined;
  }

  /** Where a job of `slot` is laid out (ChunkedJob's `slot`). */
  region(slot: number): { buffer: SharedArrayBuffer; offset: number } {
    return { buffer: this.buffer, offset: CONTROL_BYTES + slot * this.slotBytes };
  }

  /** Publishes the job laid out in `slot` and wakes the workers. */
  publish(slot: number, job: ChunkedJob, kind: JobKind): void {
    const h = header(slot);
    this.control[h + ID] = job.id;
    this.control[h + COUNT] = job.count;
    this.control[h + CHUNK] = job.chunk;
    this.control[h + KIND] = kind;
    // Everything written before this store is seen by a worker that loads it.
    Atomics.store(this.control, h + PUBLISHED, this.nextPublished);
    this.nextPublished = this.nextPublished === 0x7fffffff ? 1 : this.nextPublished + 1;
    this.ring();
  }

  /** The job of `slot` is over (its results copied out): no worker takes it up again. */
  release(slot: number): void {
    Atomics.store(this.control, header(slot) + PUBLISHED, 0);
    this.held[slot] = false;
  }

  /** Wakes the workers waiting on the doorbell (for a job, a message or the stop). */
  ring(): void {
    Atomics.add(this.control, DOORBELL, 1);
    Atomics.notify(this.control, DOORBELL);
  }

  /** The workers stop waiting for jobs (and end once told 'stop' by message). */
  stop(): void {
    Atomics.store(this.control, STOP, 1);
    this.ring();
  }
}

function header(slot: number): number {
  return 2 + slot * HEADER_INTS;
}

/**
 * The workers' half (part of WORKER_SOURCE in verifier-pool.ts, beside WORKER_CHUNKS_SOURCE and
 * the kinds' item functions `verifyItem` and `signItem`): between two turns of its event loop (which
 * reads messages) a worker takes part in every published job, waits on the doorbell, and looks
 * again. The wait has a timeout only as a backstop: every job, message and the stop ring it.
 */
export const WORKER_BOARD_SOURCE = `
const BOARD_SLOTS = ${BOARD_SLOTS};
const board = workerData.board;
const control = new Int32Array(board, 0, 2 + BOARD_SLOTS * ${HEADER_INTS});
function runSlots() {
  for (let slot = 0; slot < BOARD_SLOTS; slot++) {
    const h = 2 + slot * ${HEADER_INTS};
    Atomics.add(control, h + ${INSIDE}, 1);
    try {
      if (Atomics.load(control, h + ${PUBLISHED}) === 0) continue;
      const job = {
        id: control[h + ${ID}],
        count: control[h + ${COUNT}],
        chunk: control[h + ${CHUNK}],
        buffer: board,
        start: ${CONTROL_BYTES} + slot * ${SLOT_BYTES},
      };
      if (control[h + ${KIND}] === ${JobKind.sign}) runChunks(job, 128, signItem);
      else runChunks(job, 161, verifyItem);
    } finally {
      Atomics.sub(control, h + ${INSIDE}, 1);
    }
  }
}
function waitForJobs() {
  if (Atomics.load(control, ${STOP}) !== 0) return;
  // A job published after this load rings the doorbell after it: the wait then returns at once.
  const seen = Atomics.load(control, ${DOORBELL});
  runSlots();
  Atomics.wait(control, ${DOORBELL}, seen, 1000);
  runSlots();
  setImmediate(waitForJobs);
}
setImmediate(waitForJobs);
`;
