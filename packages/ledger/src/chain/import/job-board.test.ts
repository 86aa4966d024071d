import type { Worker } from 'node:worker_threads';
import { sha256, u32le } from '@chain/crypto';
import { nativeSecp256k1 } from '@chain/crypto/native';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { testWallet } from '../../testing/temp-chain';
import { ChunkedJob } from './chunked-job';
import { BOARD_SLOTS, JobBoard, JobKind, SLOT_BYTES } from './job-board';
import { VerifierPool, type VerifyItem } from './verifier-pool';

const pools: VerifierPool[] = [];
afterEach(async () => {
  vi.restoreAllMocks();
  for (const pool of pools.splice(0)) await pool.close();
});

function pool(threads: number): VerifierPool {
  const p = new VerifierPool(nativeSecp256k1, threads);
  pools.push(p);
  return p;
}

const signer = testWallet('board');
const wrongKey = testWallet('not the signer').publicKey;
/** `count` signed items, those at the indices in `bad` checked against the wrong key. */
function items(count: number, bad: ReadonlySet<number>, salt = 0): VerifyItem[] {
  return Array.from({ length: count }, (_, i) => {
    const hash = sha256(u32le(salt * 100_000 + i));
    return {
      signature: nativeSecp256k1.sign(hash, signer.privateKey),
      hash,
      publicKey: bad.has(i) ? wrongKey : signer.publicKey,
    };
  });
}
const expected = (count: number, bad: ReadonlySet<number>) =>
  Array.from({ length: count }, (_, i) => !bad.has(i));

/** A turn of submissions shares its signatures this way (mempool-admission.ts). */
const TURN = { parallelFrom: 16, chunk: 8 } as const;

/** The control words of slot `slot` in the board's buffer (job-board.ts's layout). */
const slotWords = (board: JobBoard, slot: number) => {
  const control = new Int32Array(board.buffer);
  return { published: 2 + slot * 6, inside: 2 + slot * 6 + 1, control };
};

describe('JobBoard', () => {
  it('gives each job a slot of its own until all are held, and refuses a job too large for one', () => {
    const board = new JobBoard();
    const held = Array.from({ length: BOARD_SLOTS }, () => board.acquire(1_000));
    expect(new Set(held).size).toBe(BOARD_SLOTS);
    expect(board.acquire(1_000)).toBeUndefined();
    board.release(held[2]!);
    expect(board.acquire(1_000)).toBe(held[2]);
    expect(new JobBoard().acquire(SLOT_BYTES + 1)).toBeUndefined();
  });

  it('does not hand out a released slot while a worker is still inside it', () => {
    const board = new JobBoard();
    const slot = board.acquire(100)!;
    const job = new ChunkedJob(7, 10, 5, 4, board.region(slot));
    board.publish(slot, job, JobKind.verify);
    const { published, inside, control } = slotWords(board, slot);
    expect(control[published]).not.toBe(0);
    // A worker counts itself in, then the job is over.
    Atomics.add(control, inside, 1);
    board.release(slot);
    expect(control[published]).toBe(0);
    const others = Array.from({ length: BOARD_SLOTS - 1 }, () => board.acquire(100));
    expect(others).not.toContain(slot);
    expect(board.acquire(100)).toBeUndefined();
    // The worker leaves: the slot is free again, and its next job's counters start from zero.
    Atomics.sub(control, inside, 1);
    expect(board.acquire(100)).toBe(slot);
    const next = new ChunkedJob(8, 10, 5, 4, board.region(slot));
    expect([...next.counters]).toEqual([0, 0]);
  });
});

describe('VerifierPool on the job board', () => {
  it('verifies turn-sized jobs on the board, more at once than it has slots, each with its own results', async () => {
    const publish = vi.spyOn(JobBoard.prototype, 'publish');
    const verifier = pool(1);
    const turns = Array.from({ length: 12 }, (_, t) => {
      const bad = new Set([t, 20 + (t % 7)]);
      return { bad, batch: items(40, bad, t) };
    });

    const results = await Promise.all(turns.map(({ batch }) => verifier.verify(batch, TURN)));

    expect(results).toEqual(turns.map(({ bad }) => expected(40, bad)));
    // All were handed over before any was over: BOARD_SLOTS on the board, the others by message.
    expect(publish).toHaveBeenCalledTimes(BOARD_SLOTS);
  });

  it('reuses a slot job after job, in order, with the right results each time', async () => {
    const publish = vi.spyOn(JobBoard.prototype, 'publish');
    const verifier = pool(1);
    for (let round = 0; round < 30; round++) {
      const bad = new Set([round % 40]);
      expect(await verifier.verify(items(40, bad, round), TURN)).toEqual(expected(40, bad));
    }
    expect(publish).toHaveBeenCalledTimes(30);
    // One slot served them all: each job was over before the next.
    expect(new Set(publish.mock.calls.map(([slot]) => slot))).toEqual(new Set([0]));
  });

  it('signs on the board as by message', async () => {
    const publish = vi.spyOn(JobBoard.prototype, 'publish');
    const hashes = Array.from({ length: 24 }, (_, i) => sha256(u32le(i)));
    const list = hashes.map((hash) => ({ hash, privateKey: signer.privateKey }));

    const signatures = await pool(2).sign(list);

    expect(signatures).toEqual(hashes.map((hash) => nativeSecp256k1.sign(hash, signer.privateKey)));
    expect(publish.mock.calls.map(([, , kind]) => kind)).toEqual([JobKind.sign]);
  });

  it('stops while the workers are busy with jobs on the board and by message, and every job settles right', async () => {
    for (let round = 0; round < 5; round++) {
      const verifier = new VerifierPool(nativeSecp256k1, 2);
      const bad = new Set([3, 250]);
      // Six background jobs: four on the board, two by message.
      const pending = Array.from({ length: 6 }, (_, k) =>
        verifier.background(items(300, bad, round * 10 + k)),
      );
      await new Promise((resolve) => setTimeout(resolve, round));
      await verifier.close();
      for (const job of pending) expect(await job.settle()).toEqual(expected(300, bad));
      // Closed, it still verifies, on the calling thread.
      expect(await verifier.verify(items(20, new Set([1])), TURN)).toEqual(
        expected(20, new Set([1])),
      );
    }
  });

  it('falls back to the calling thread when a worker fails, with jobs on the board in flight', async () => {
    const verifier = pool(1);
    // Start the workers, then fail one while jobs are out.
    await verifier.verify(items(20, new Set()), TURN);
    const bad = new Set([0, 299]);
    const pending = Array.from({ length: 3 }, (_, k) => verifier.background(items(300, bad, k)));
    const workers = (verifier as unknown as { workers: Worker[] }).workers;
    workers[0]!.emit('error', new Error('the worker failed'));

    for (const job of pending) expect(await job.settle()).toEqual(expected(300, bad));
    expect(await verifier.verify(items(50, new Set([7])), TURN)).toEqual(
      expected(50, new Set([7])),
    );
  });
});
