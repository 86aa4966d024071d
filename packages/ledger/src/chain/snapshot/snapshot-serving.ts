import { decodeBlock, signedHeaderBytes } from '../../block/block';
import {
  encodeAccountEntry,
  encodeProducersEntry,
  encodeSpaceEntry,
} from '../../state/state-lattice';
import type { ChainCore } from '../chain-core';
import { type DatabaseSnapshot, heightKey, META_PRODUCERS, readHeightKey } from '../storage/store';
import { CHUNK_RECORDS, encodeRecordChunk } from './record-chunk';
import { recordOfEntry } from './snapshot-export';

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

/** Where a chunk starts in the record order: an account number, a space key, the producer set. */
type Position =
  | { part: 'accounts'; number: number }
  | { part: 'spaces'; key: string }
  | { part: 'producers' };

const READ_BATCH = 1024;

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
    const positions: Position[] = [];
    const chunkHashes: Uint8Array[] = [];
    let records = 0;
    let chunk: Uint8Array[] = [];
    for await (const [position, record] of recordsFrom(core, view, {
      part: 'accounts',
      number: 0,
    })) {
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
        for (let h = from; h < Math.min(from + count, height); h++) {
          if (h < historyFrom) {
            const header = await store.headers.get(heightKey(h), { snapshot: view });
            if (header === undefined) throw new Error(`the header of block ${h} is missing`);
            out.push(Uint8Array.from(header));
          } else {
            const bytes = await store.blocks.get(heightKey(h), { snapshot: view });
            if (bytes === undefined) throw new Error(`block ${h} is missing`);
            out.push(Uint8Array.from(signedHeaderBytes(decodeBlock(bytes, core.hashes))));
          }
        }
        return out;
      },
      async block() {
        const bytes = await store.blocks.get(heightKey(height), { snapshot: view });
        if (bytes === undefined) throw new Error(`block ${height} is missing`);
        return Uint8Array.from(bytes);
      },
      async chunk(index) {
        const start = positions[index];
        if (start === undefined) throw new RangeError(`chunk ${index} does not exist`);
        const out: Uint8Array[] = [];
        for await (const [, record] of recordsFrom(core, view, start)) {
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

/** The records of the snapshot's state from `start` on, in record order, each with its position. */
async function* recordsFrom(
  core: ServingCore,
  view: DatabaseSnapshot,
  start: Position,
): AsyncGenerator<[Position, Uint8Array]> {
  const store = core.requireStore();
  if (start.part === 'accounts') {
    const accounts = store.accounts.iterator({ gte: heightKey(start.number), snapshot: view });
    try {
      for (;;) {
        const entries = await accounts.nextv(READ_BATCH);
        if (entries.length === 0) break;
        for (const [key, value] of entries) {
          const number = readHeightKey(key);
          yield [{ part: 'accounts', number }, recordOfEntry(encodeAccountEntry(number, value))];
        }
      }
    } finally {
      await accounts.close();
    }
  }
  if (start.part !== 'producers') {
    const gte = start.part === 'spaces' ? start.key : '';
    const spaces = store.spaces.iterator({ gte, snapshot: view });
    try {
      for (;;) {
        const entries = await spaces.nextv(READ_BATCH);
        if (entries.length === 0) break;
        for (const [key, value] of entries) {
          const split = key.indexOf('\u0000');
          const record = encodeSpaceEntry(key.slice(0, split), key.slice(split + 1), value);
          yield [{ part: 'spaces', key }, recordOfEntry(record)];
        }
      }
    } finally {
      await spaces.close();
    }
  }
  const producers = await store.meta.get(META_PRODUCERS, { snapshot: view });
  if (producers === undefined) throw new Error('the producer set is missing');
  yield [{ part: 'producers' }, recordOfEntry(encodeProducersEntry(producers))];
}
