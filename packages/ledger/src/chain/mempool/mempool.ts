import type { Operation } from '../../operation/operation';
import type { OperationType } from '../../operation/registry';
import type { StateDelta, StateKey } from '../../state/state-delta';
import { StateLayer, type StateView } from '../../state/state-layer';
import { type Pause, STEP_ITEMS } from '../../state/steps';
import type { JournalRecord } from '../storage/journal';

/** One operation waiting for a block. */
export interface PendingEntry {
  op: Operation;
  type: OperationType;
  /**
   * Hex of the digest (mempool and signature-cache key). findOperation finds an entry by its
   * ophash through it too (`byOpHash`): no identity text is kept per entry.
   */
  key: string;
  /** Unix seconds of arrival. */
  arrival: number;
  /** Resolved signer account number in the pending state. */
  signer: number;
  publicKey: Uint8Array;
  /** The journal record holding it, when submitted locally. */
  journal: JournalRecord | undefined;
  /** Estimated heap it holds while pending (pendingEntryBytes), counted against the byte budget. */
  bytes: number;
  /** What it did to the pending state (apply-once: a block takes it from here). */
  delta: StateDelta;
  /** The chain's revision (committed state) the delta was computed on. */
  revision: number;
}

/**
 * Heap an entry holds beside its operation's bytes and its state entries: the entry, the decoded
 * operation and its body, its key string, its signature-cache entry and its journal record.
 * Measured (session 25: node --expose-gc, heap used after a full collection, 20,000 transfers of
 * 108 bytes from 16 signers to 100 receivers already in the pool, so no state entry is added):
 * 1,871-1,887 bytes an entry by sendTo, 1,915-1,935 by excuteRaw, delta included
 * (tools/bench/src/pending-entry-heap.ts). With PENDING_DELTA_BYTES and the bytes that is 1,958:
 * rounded up, since an estimate that undercounts lets the heap fill (1,250 before, when the real
 * figure was 2,001-2,063 with the identity text and 1,758 was counted).
 */
export const PENDING_ENTRY_BYTES = 1_450;
/**
 * Heap each state entry the pending layer gained holds (an account copied or created, an address
 * indexed, a state-space entry), measured the same way with a new receiver per transfer: 880 bytes
 * more an entry for two state entries (session 25: 696, 2,573 against 1,877 an entry; kept at 450
 * so that the new-receiver case, 2,858 counted, stays above what it holds).
 */
export const PENDING_STATE_ENTRY_BYTES = 450;
/**
 * Heap the entry's StateDelta holds beside the state entries it shares with the pending layer:
 * the delta, its keys and its own layer's account map.
 */
export const PENDING_DELTA_BYTES = 400;

/** Entries the layer holds of its own (accounts, addresses, state-space entries). */
export function ownStateEntries(layer: StateLayer): number {
  let count = layer.accounts.size + layer.numbers.size;
  for (const entries of layer.spaceEntries.values()) count += entries.size;
  return count;
}

/**
 * The heap an admitted operation holds while pending: its bytes, what decoding and keeping it
 * costs, and the state entries applying it added to the pending layer (`addedStateEntries`).
 */
export function pendingEntryBytes(op: Operation, addedStateEntries: number): number {
  return (
    PENDING_ENTRY_BYTES +
    PENDING_DELTA_BYTES +
    op.bytes.length +
    PENDING_STATE_ENTRY_BYTES * Math.max(0, addedStateEntries)
  );
}

/** A submission waiting for its turn (mempool-admission.ts): an operation made elsewhere. */
export interface Submission {
  op: Operation;
  local: boolean;
}

/**
 * Work gathered during one event-loop turn, prepared together after it (the entries it reads
 * loaded, its signatures checked), then run one item after another in arrival order
 * (mempool-admission.ts: `inTurn`).
 */
export class TurnQueue<I, R> {
  waiting: Array<{ item: I; resolve(result: Promise<R>): void; reject(error: unknown): void }> = [];
  /** A turn's batch is scheduled or being prepared: new items only join `waiting`. */
  draining = false;
}

/**
 * Pending operations in arrival order (so each account's operations are in n_operation order),
 * and the pending state: the committed state with every pending operation applied.
 */
export class Mempool {
  /** In arrival order; replaced whole by a re-check (adopt). */
  entries = new Map<string, PendingEntry>();
  layer: StateLayer;
  zeroFeeCount = 0;
  /** Sum of the entries' `bytes`: the heap the pool holds, against ChainOptions.maxPendingBytes. */
  bytes = 0;
  /**
   * Since start: entries blocks took from their deltas, entries blocks applied again, and entries
   * a recheck applied again (pool-execution.ts; the metrics show them).
   */
  readonly applyOnce = { merged: 0, reapplied: 0, rechecked: 0 };

  /** Set while a block settles the pool in steps: admission waits for it (holdAdmission). */
  private held: Promise<void> | undefined;

  constructor(root: StateView) {
    this.layer = new StateLayer(root);
  }

  /**
   * Runs `work` (a block settling the pool, in steps that give the event loop back) with admission
   * held back until it ends: admission waits for `admissionHeld` (mempool-admission.ts, drainTurns).
   */
  async holdAdmission(work: () => Promise<void>): Promise<void> {
    let release!: () => void;
    this.held = new Promise<void>((resolve) => {
      release = resolve;
    });
    try {
      await work();
    } finally {
      this.held = undefined;
      release();
    }
  }

  /** Resolves when admission may go on; undefined when it may now. */
  get admissionHeld(): Promise<void> | undefined {
    return this.held;
  }

  /**
   * The entry an ophash names (its block part aside): the one of that digest, when it is that
   * signer's operation of that n_operation. The digest alone identifies a pending operation (it is
   * the pool's key); the other two parts must match as well, as they did in a lookup by identity.
   */
  byOpHash(signer: number, nOperation: number, digestHex: string): PendingEntry | undefined {
    const entry = this.entries.get(digestHex);
    return entry !== undefined && entry.op.signer === signer && entry.op.nOperation === nOperation
      ? entry
      : undefined;
  }

  get size(): number {
    return this.entries.size;
  }

  insert(entry: PendingEntry): void {
    this.entries.set(entry.key, entry);
    this.bytes += entry.bytes;
    if (entry.op.fee === 0n) this.zeroFeeCount++;
  }

  remove(key: string): PendingEntry | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    this.entries.delete(key);
    this.bytes -= entry.bytes;
    if (entry.op.fee === 0n) this.zeroFeeCount--;
    return entry;
  }

  /**
   * True when a pending entry read or wrote one of `keys`. A pass over the entries' few keys each
   * (a few ms at 30,000 pending, `pause()` between steps), asked once per block: cheaper than
   * keeping a count per key up to date at every admission and removal. The pool must not change
   * meanwhile (holdAdmission).
   */
  async touchesAny(keys: ReadonlySet<StateKey>, pause: Pause): Promise<boolean> {
    if (keys.size === 0) return false;
    let seen = 0;
    for (const entry of this.entries.values()) {
      if (entry.delta.touchesAny(keys)) return true;
      if (++seen % (8 * STEP_ITEMS) === 0) await pause();
    }
    return false;
  }

  /** Takes the entries and pending layer of `next` (a re-check built it beside this pool). */
  adopt(next: Mempool): void {
    this.entries = next.entries;
    this.layer = next.layer;
    this.bytes = next.bytes;
    this.zeroFeeCount = next.zeroFeeCount;
  }

  /** Empties the pool, returning the entries in order (to re-admit them on a new state). */
  drain(root: StateView): PendingEntry[] {
    const all = [...this.entries.values()];
    this.entries.clear();
    this.zeroFeeCount = 0;
    this.bytes = 0;
    this.layer = new StateLayer(root);
    return all;
  }
}
