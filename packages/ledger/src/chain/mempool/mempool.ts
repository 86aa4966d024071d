import type { Operation } from '../../operation/operation';
import type { OperationType } from '../../operation/registry';
import { StateLayer, type StateView } from '../../state/state-layer';
import type { JournalRecord } from '../storage/journal';

/** One operation waiting for a block. */
export interface PendingEntry {
  op: Operation;
  type: OperationType;
  /** Hex of the digest (mempool and signature-cache key). */
  key: string;
  /** opHashIdentity of the operation (findOperation by its pending or mined ophash). */
  identity: string;
  /** Unix seconds of arrival. */
  arrival: number;
  /** Resolved signer account number in the pending state. */
  signer: number;
  publicKey: Uint8Array;
  /** The journal record holding it, when submitted locally. */
  journal: JournalRecord | undefined;
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
  readonly entries = new Map<string, PendingEntry>();
  readonly byIdentity = new Map<string, PendingEntry>();
  layer: StateLayer;
  zeroFeeCount = 0;

  constructor(root: StateView) {
    this.layer = new StateLayer(root);
  }

  get size(): number {
    return this.entries.size;
  }

  insert(entry: PendingEntry): void {
    this.entries.set(entry.key, entry);
    this.byIdentity.set(entry.identity, entry);
    if (entry.op.fee === 0n) this.zeroFeeCount++;
  }

  remove(key: string): PendingEntry | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    this.entries.delete(key);
    this.byIdentity.delete(entry.identity);
    if (entry.op.fee === 0n) this.zeroFeeCount--;
    return entry;
  }

  /** Empties the pool, returning the entries in order (to re-admit them on a new state). */
  drain(root: StateView): PendingEntry[] {
    const all = [...this.entries.values()];
    this.entries.clear();
    this.byIdentity.clear();
    this.zeroFeeCount = 0;
    this.layer = new StateLayer(root);
    return all;
  }
}
