import { ByteReader } from '../../codec/byte-reader';
import { ByteWriter } from '../../codec/byte-writer';
import type { ChainBatch, ChainStore } from './store';

/**
 * One journal entry: the operations of one group commit. It is deleted once every operation in it
 * has left the mempool (mined or dropped).
 */
export interface JournalRecord {
  readonly key: Uint8Array;
  /** Operations of the record still pending. */
  remaining: number;
  /** No more operations join it (it may be deleted). */
  sealed: boolean;
}

interface OpenGroup {
  record: JournalRecord;
  ops: Uint8Array[];
  /**
   * Settles once the group's record is on disk: one promise the group's submitters share (a
   * promise, its two functions and a waiter a submission were garbage on every one).
   */
  durable: Promise<void>;
  settle: { resolve: () => void; reject: (error: unknown) => void };
}

function openGroup(record: JournalRecord): OpenGroup {
  let settle!: OpenGroup['settle'];
  const durable = new Promise<void>((resolve, reject) => {
    settle = { resolve, reject };
  });
  return { record, ops: [], durable, settle };
}

function sequenceKey(seq: number): Uint8Array {
  const key = new Uint8Array(8);
  new DataView(key.buffer).setBigUint64(0, BigInt(seq), false);
  return key;
}

function readSequenceKey(key: Uint8Array): number {
  return Number(new DataView(key.buffer, key.byteOffset, 8).getBigUint64(0, false));
}

function encodeGroup(ops: readonly Uint8Array[]): Uint8Array {
  const w = new ByteWriter(8 + ops.reduce((n, op) => n + op.length + 4, 0));
  w.u32(ops.length);
  for (const op of ops) w.u32(op.length).bytes(op);
  return w.finish();
}

function decodeGroup(bytes: Uint8Array): Uint8Array[] {
  const r = new ByteReader(bytes);
  const ops: Uint8Array[] = [];
  for (let n = r.u32('journal count'); n > 0; n--) ops.push(r.bytesCopy(r.u32('journal length')));
  r.end('journal record');
  return ops;
}

/**
 * Write-ahead journal of locally submitted operations, in the `journal` sublevel keyed by sequence.
 * Submissions made while a write is in flight share the next `sync: true` record (group commit):
 * many concurrent submitters cost one put and one fsync per group, not one each.
 */
export class Journal {
  private nextSeq: number;
  private open: OpenGroup | undefined;

  private constructor(
    private readonly store: ChainStore,
    nextSeq: number,
  ) {
    this.nextSeq = nextSeq;
  }

  static async open(store: ChainStore): Promise<Journal> {
    let last = -1;
    for await (const key of store.journal.keys({ reverse: true, limit: 1 })) {
      last = readSequenceKey(key);
    }
    return new Journal(store, last + 1);
  }

  private newRecord(remaining: number): JournalRecord {
    return { key: sequenceKey(this.nextSeq++), remaining, sealed: false };
  }

  /** Every record with its operations, oldest first (unreadable records come back empty). */
  async records(): Promise<Array<{ record: JournalRecord; ops: Uint8Array[] }>> {
    const out: Array<{ record: JournalRecord; ops: Uint8Array[] }> = [];
    for await (const [key, value] of this.store.journal.iterator()) {
      let ops: Uint8Array[] = [];
      try {
        ops = decodeGroup(value);
      } catch {
        // A damaged record holds nothing we can replay; it is removed below.
      }
      out.push({ record: { key: Uint8Array.from(key), remaining: ops.length, sealed: true }, ops });
    }
    return out;
  }

  /** Adds the operation to the open group; the promise resolves once it is on disk. */
  append(bytes: Uint8Array): { record: JournalRecord; durable: Promise<void> } {
    let group = this.open;
    if (group === undefined || group.record.sealed) {
      group = openGroup(this.newRecord(0));
      this.open = group;
      const flushing = group;
      void this.store.enqueue(() => this.flush(flushing));
    }
    group.ops.push(bytes);
    group.record.remaining++;
    return { record: group.record, durable: group.durable };
  }

  private async flush(group: OpenGroup): Promise<void> {
    if (this.open === group) this.open = undefined;
    try {
      const batch = this.store.batch();
      batch.put(group.record.key, encodeGroup(group.ops), { sublevel: this.store.journal });
      await batch.write({ sync: true });
      group.settle.resolve();
    } catch (error) {
      group.settle.reject(error);
    }
  }

  /** A new record of `ops` written inside another batch (a rollback returning operations). */
  writeIn(batch: ChainBatch, ops: readonly Uint8Array[]): JournalRecord {
    const record = this.newRecord(ops.length);
    record.sealed = true;
    batch.put(record.key, encodeGroup(ops), { sublevel: this.store.journal });
    return record;
  }

  /**
   * Deletes, inside `batch`, the records that `counts` operations leaving the mempool would empty.
   * Returns the bookkeeping to apply once the batch is on disk.
   */
  releaseIn(batch: ChainBatch, counts: ReadonlyMap<JournalRecord, number>): () => void {
    for (const [record, count] of counts) {
      if (record.remaining - count <= 0) {
        record.sealed = true;
        batch.del(record.key, { sublevel: this.store.journal });
      }
    }
    return () => {
      for (const [record, count] of counts) record.remaining -= count;
    };
  }

  /** Operations dropped from the mempool: delete the records they empty (best effort). */
  async release(records: readonly JournalRecord[]): Promise<void> {
    const emptied: Uint8Array[] = [];
    for (const record of records) {
      record.remaining--;
      if (record.remaining <= 0) {
        record.sealed = true;
        emptied.push(record.key);
      }
    }
    if (emptied.length === 0) return;
    await this.store.enqueue(async () => {
      const batch = this.store.batch();
      for (const key of emptied) batch.del(key, { sublevel: this.store.journal });
      await batch.write();
    });
  }
}
