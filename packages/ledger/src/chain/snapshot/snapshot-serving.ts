import type { ChainCore } from '../chain-core';
import { type RecordPosition, stateRecords } from '../storage/state-records';
import { CHUNK_RECORDS, encodeRecordChunk } from './record-chunk';
import { blockAt, signedHeaderAt } from './snapshot-export';

/**
 * A snapshot a running node serves to joining peers (snapshot sync): the chain as it stood at one
 * height, read through a LevelDB snapshot while the node goes on, cut into chunks of CHUNK_RECORDS
 * records whose SHA-256 hashes make its manifest. The cut is the same on every node holding that
 * height's state, so that a joining node can cross-check the manifests of several peers.
 */
export interface ServedSnapshot {
  readonly height: number;
  readonly hash: Uint8Array;
  readonly records: number;
  /** SHA-256 of each chunk (encodeRecordChunk). */
  readonly chunkHashes: readonly Uint8Array[];
  /** `header || signature` of blocks `from` to `from + count - 1` (all below `height`). */
  headers(from: number, count: number): Promise<Uint8Array[]>;
  /** The block at `height`, whole. */
  block(): Promise<Uint8Array>;
  /** Chunk `index`, encoded (encodeRecordChunk). */
  chunk(index: number): Promise<Uint8Array>;
  /** Releases the LevelDB snapshot (idempotent). */
  close(): Promise<void>;
}

export type ServingCore = Pick<
  ChainCore,
  'hashes' | 'headState' | 'historyFrom' | 'requireStore' | 'tasks'
>;

/** Takes a LevelDB snapshot of the head and computes its manifest (one pass over the state). */
export async function serveSnapshot(core: ServingCore): Promise<ServedSnapshot> {
  const store = core.requireStore();
  // Between two commits: the head and the database view are the same block's.
  const { view, height, hash, historyFrom } = await core.tasks.run(async () => ({
    view: await store.snapshot(),
    height: core.headState.height,
    hash: core.headState.hash.slice(),
    historyFrom: core.historyFrom,
  }));
  let closed = false;
  try {
    const positions: RecordPosition[] = [];
    const chunkHashes: Uint8Array[] = [];
    let records = 0;
    let chunk: Uint8Array[] = [];
    for await (const [position, record] of stateRecords(store, view)) {
      if (chunk.length === 0) positions.push(position);
      chunk.push(record);
      records++;
      if (chunk.length === CHUNK_RECORDS) {
        chunkHashes.push(core.hashes.sha256(encodeRecordChunk(chunk)));
        chunk = [];
      }
    }
    if (chunk.length > 0) chunkHashes.push(core.hashes.sha256(encodeRecordChunk(chunk)));
    return {
      height,
      hash,
      records,
      chunkHashes,
      async headers(from, count) {
        const out: Uint8Array[] = [];
        const at = { hashes: core.hashes, historyFrom };
        for (let h = from; h < Math.min(from + count, height); h++) {
          out.push(await signedHeaderAt(store, at, h, view));
        }
        return out;
      },
      block: () => blockAt(store, height, view),
      async chunk(index) {
        const start = positions[index];
        if (start === undefined) throw new RangeError(`chunk ${index} does not exist`);
        const out: Uint8Array[] = [];
        for await (const [, record] of stateRecords(store, view, start)) {
          out.push(record);
          if (out.length === CHUNK_RECORDS) break;
        }
        return encodeRecordChunk(out);
      },
      async close() {
        if (closed) return;
        closed = true;
        await view.close();
      },
    };
  } catch (error) {
    closed = true;
    await view.close();
    throw error;
  }
}
