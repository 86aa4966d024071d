import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  MAX_BACKOFF_KNOWN_MS,
  MAX_BACKOFF_MS,
  PeerBook,
  RECLAIM_BACKOFF_MS,
  RECLAIM_FIRST_BACKOFF_MS,
  RECLAIM_MS,
} from './peer-book';

const made: Array<{ dir: string; book: PeerBook }> = [];
afterEach(async () => {
  for (const { dir, book } of made.splice(0)) {
    await book.flush();
    await rm(dir, { recursive: true, force: true });
  }
});

async function bookAt(clock: { now: number }): Promise<PeerBook> {
  const dir = await mkdtemp(join(tmpdir(), 'p2p-book-'));
  const book = new PeerBook(dir, () => clock.now);
  made.push({ dir, book });
  return book;
}

const A = { ip: '198.18.0.101', port: 9714 };
const B = { ip: '198.18.0.102', port: 9714 };
const NEVER = { ip: '198.18.0.103', port: 9714 };

/** Fails every address `times` times, each round once the first of them is due (a cut link). */
function failRepeatedly(
  book: PeerBook,
  clock: { now: number },
  addresses: (typeof A)[],
  times: number,
) {
  for (let k = 0; k < times; k++) {
    clock.now = Math.max(clock.now, Math.min(...addresses.map((a) => book.get(a)!.retryAt)));
    for (const address of addresses) {
      book.attempted(address);
      book.failed(address);
    }
  }
}

describe('peer book redial after a link comes back', () => {
  it('waits at most MAX_BACKOFF_KNOWN_MS before dialling a server it was connected to', async () => {
    const clock = { now: 1_000_000 };
    const book = await bookAt(clock);
    book.add(A);
    book.connected(A, 'peer-a');
    book.add(NEVER);
    // A minute of failures (a cut link): the wait has reached its cap.
    failRepeatedly(book, clock, [A, NEVER], 10);
    const since = clock.now;
    expect(book.get(A)!.retryAt - since).toBeLessThanOrEqual(MAX_BACKOFF_KNOWN_MS);
    expect(MAX_BACKOFF_KNOWN_MS).toBeLessThanOrEqual(10_000);
    // An address never reached keeps the long wait.
    expect(book.get(NEVER)!.retryAt - since).toBeGreaterThan(MAX_BACKOFF_KNOWN_MS);
    expect(book.get(NEVER)!.retryAt - since).toBeLessThanOrEqual(MAX_BACKOFF_MS);
  });

  it('dials the other lost servers at once when one of them is reached again', async () => {
    const clock = { now: 1_000_000 };
    const book = await bookAt(clock);
    for (const s of [A, B, NEVER]) book.add(s);
    book.connected(A, 'peer-a');
    book.connected(B, 'peer-b');
    failRepeatedly(book, clock, [A, B, NEVER], 6);
    expect(book.due()).toEqual([]);
    // The network heals: A answers (it dialled us, or its wait ended first).
    book.connected(A, 'peer-a');
    // B (lost with it) is dialled now; an address never reached keeps its wait.
    expect(book.due().map((s) => s.ip)).toEqual([B.ip]);
    expect(book.get(B)!.attempts).toBe(6);
  });
});

describe('PeerBook.forgetDead', () => {
  it('forgets servers that failed that many times in a row, never a pinned one', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'peer-book-'));
    try {
      const book = new PeerBook(dir);
      const pinned = { ip: '198.18.0.80', port: 4004 };
      const dead = { ip: '198.18.0.81', port: 4004 };
      const alive = { ip: '198.18.0.82', port: 4004 };
      book.addPinned(pinned);
      book.add(dead);
      book.add(alive);
      for (let i = 0; i < 8; i++) {
        book.failed(pinned);
        book.failed(dead);
      }
      book.failed(alive);
      expect(book.forgetDead(8)).toBe(1);
      expect(book.list().map((s) => s.ip)).toEqual([pinned.ip, alive.ip]);
      expect(book.get(pinned)!.attempts).toBe(8);
      await book.flush();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('peer book: a lost connection is reclaimed', () => {
  it('keeps a lost server for RECLAIM_MS, retried every RECLAIM_BACKOFF_MS at most, never forgotten meanwhile', async () => {
    const clock = { now: 1_000_000 };
    const book = await bookAt(clock);
    book.add(A);
    book.connected(A, 'peer-a');
    book.add(B);
    book.connected(B, 'peer-b');
    book.lost(A);
    expect(book.isReclaimed(A)).toBe(true);
    expect(book.isReclaimed(B)).toBe(false);
    // A cut link: a minute of failures.
    failRepeatedly(book, clock, [A, B], 10);
    expect(book.get(A)!.retryAt - clock.now).toBeLessThanOrEqual(RECLAIM_BACKOFF_MS);
    expect(book.get(B)!.retryAt - clock.now).toBeGreaterThan(RECLAIM_BACKOFF_MS);
    expect(book.forgetDead(8)).toBe(1);
    expect(book.get(A)).toBeDefined();
    expect(book.get(B)).toBeUndefined();
    // Past its window the lost server is an ordinary failing one again.
    clock.now += RECLAIM_MS;
    expect(book.isReclaimed(A)).toBe(false);
    expect(book.forgetDead(8)).toBe(1);
    expect(book.get(A)).toBeUndefined();
  });

  it('dials a lost server again within RECLAIM_FIRST_BACKOFF_MS, then doubles its wait up to RECLAIM_BACKOFF_MS', async () => {
    const clock = { now: 1_000_000 };
    const book = await bookAt(clock);
    book.add(A);
    book.connected(A, 'peer-a');
    // Its last dial set a wait; the loss replaces it with a short, jittered one.
    book.attempted(A);
    book.lost(A, () => 0.5);
    expect(book.get(A)!.retryAt - clock.now).toBe(RECLAIM_FIRST_BACKOFF_MS / 2);
    const waits: number[] = [];
    for (let k = 0; k < 6; k++) {
      clock.now = book.get(A)!.retryAt;
      book.attempted(A);
      book.failed(A);
      waits.push(book.get(A)!.retryAt - clock.now);
    }
    expect(waits).toEqual([
      RECLAIM_FIRST_BACKOFF_MS,
      RECLAIM_FIRST_BACKOFF_MS * 2,
      RECLAIM_FIRST_BACKOFF_MS * 4,
      RECLAIM_BACKOFF_MS,
      RECLAIM_BACKOFF_MS,
      RECLAIM_BACKOFF_MS,
    ]);
  });

  it('stops reclaiming a server once it is reached again', async () => {
    const clock = { now: 1_000_000 };
    const book = await bookAt(clock);
    book.add(A);
    book.connected(A, 'peer-a');
    book.lost(A);
    book.connected(A, 'peer-a');
    expect(book.isReclaimed(A)).toBe(false);
    // An address not in the book is not kept by a loss.
    book.lost(NEVER);
    expect(book.isReclaimed(NEVER)).toBe(false);
  });
});
