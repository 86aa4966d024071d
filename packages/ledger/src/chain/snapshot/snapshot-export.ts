import { decodeBlock, signedHeaderBytes } from '../../block/block';
import {
  encodeAccountEntry,
  encodeProducersEntry,
  encodeSpaceEntry,
  STATE_ENTRY_TAG,
} from '../../state/state-lattice';
import type { ChainCore } from '../chain-core';
import { heightKey, META_PRODUCERS, readHeightKey } from '../storage/store';

/**
 * A snapshot of the chain at its head: the signed headers from block 0 (checked without the state,
 * HeaderChain), the head block whole, and every state entry as a record: its state-root encoding
 * (state-lattice.ts) without the tag, so that an importer sums exactly what the root commits to.
 */
export interface ChainSnapshot {
  genesisHash: Uint8Array;
  height: number;
  hash: Uint8Array;
  /** `header || signature` of blocks 0 to height - 1, in order. */
  headers(): AsyncGenerator<Uint8Array>;
  /** The block at `height`, whole (its operations fill the operation index). */
  block(): Promise<Uint8Array>;
  /** Accounts by number, then space entries by key, then the producer set, in batches. */
  records(): AsyncGenerator<Uint8Array[]>;
  /** Accounts, for progress. */
  accounts: number;
}

/** The records of the state entries (the state-root encodings without their tag). */
export const recordOfEntry = (entry: Uint8Array): Uint8Array =>
  entry.subarray(STATE_ENTRY_TAG.length);

/**
 * What a snapshot reads of the chain's core. Of the head, only its height and hash: a snapshot at
 * an earlier block (snapshot-at.ts) gives that block's, to cut the headers and the block there.
 */
export type SnapshotCore = Pick<
  ChainCore,
  'genesisHash' | 'hashes' | 'historyFrom' | 'requireStore' | 'root'
> & { headState: Pick<ChainCore['headState'], 'height' | 'hash'> };

const BATCH = 4096;

/** The snapshot of a chain that nothing writes to meanwhile (a stopped node's data directory). */
export function chainSnapshot(core: SnapshotCore): ChainSnapshot {
  const store = core.requireStore();
  const { height, hash } = core.headState;
  return {
    genesisHash: core.genesisHash,
    height,
    hash,
    accounts: core.root.nextNumber,
    async *headers() {
      for (let h = 0; h < height; h++) {
        if (h < core.historyFrom) {
          const header = await store.read(store.headers, heightKey(h));
          if (header === undefined) throw new Error(`the header of block ${h} is missing`);
          yield header;
          continue;
        }
        const bytes = await store.read(store.blocks, heightKey(h));
        if (bytes === undefined) throw new Error(`block ${h} is missing`);
        yield signedHeaderBytes(decodeBlock(bytes, core.hashes)).slice();
      }
    },
    async block() {
      const bytes = await store.read(store.blocks, heightKey(height));
      if (bytes === undefined) throw new Error(`block ${height} is missing`);
      return bytes;
    },
    async *records() {
      const accounts = store.accounts.iterator();
      try {
        for (;;) {
          const entries = await accounts.nextv(BATCH);
          if (entries.length === 0) break;
          yield entries.map(([key, value]) =>
            recordOfEntry(encodeAccountEntry(readHeightKey(key), value)),
          );
        }
      } finally {
        await accounts.close();
      }
      const spaces = store.spaces.iterator();
      try {
        for (;;) {
          const entries = await spaces.nextv(BATCH);
          if (entries.length === 0) break;
          yield entries.map(([key, value]) => {
            const split = key.indexOf('\u0000');
            return recordOfEntry(
              encodeSpaceEntry(key.slice(0, split), key.slice(split + 1), value),
            );
          });
        }
      } finally {
        await spaces.close();
      }
      const producers = await store.read(store.meta, META_PRODUCERS);
      if (producers === undefined) throw new Error('the producer set is missing');
      yield [recordOfEntry(encodeProducersEntry(producers))];
    },
  };
}
