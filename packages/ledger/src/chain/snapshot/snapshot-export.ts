import { decodeBlock, signedHeaderBytes } from '../../block/block';
import type { ChainCore } from '../chain-core';
import { stateRecordBatches } from '../storage/state-records';
import { type ChainStore, type DatabaseSnapshot, heightKey } from '../storage/store';

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

/**
 * What a snapshot reads of the chain's core. Of the head, only its height and hash: a snapshot at
 * an earlier block (snapshot-at.ts) gives that block's, to cut the headers and the block there.
 */
export type SnapshotCore = Pick<
  ChainCore,
  'genesisHash' | 'hashes' | 'historyFrom' | 'requireStore' | 'root'
> & { headState: Pick<ChainCore['headState'], 'height' | 'hash'> };

const BATCH = 4096;

/**
 * `header || signature` of block `h` (through `view` when given): kept alone below the history a
 * snapshot restore left, else cut from the block.
 */
export async function signedHeaderAt(
  store: ChainStore,
  core: Pick<ChainCore, 'hashes' | 'historyFrom'>,
  h: number,
  view?: DatabaseSnapshot,
): Promise<Uint8Array> {
  if (h < core.historyFrom) {
    const header = await readAt(store, store.headers, h, view);
    if (header === undefined) throw new Error(`the header of block ${h} is missing`);
    return Uint8Array.from(header);
  }
  const block = decodeBlock(await blockAt(store, h, view), core.hashes);
  return Uint8Array.from(signedHeaderBytes(block));
}

/** Block `h` whole (through `view` when given). */
export async function blockAt(
  store: ChainStore,
  h: number,
  view?: DatabaseSnapshot,
): Promise<Uint8Array> {
  const bytes = await readAt(store, store.blocks, h, view);
  if (bytes === undefined) throw new Error(`block ${h} is missing`);
  return Uint8Array.from(bytes);
}

/** The value at height `h` of `sublevel`, through `view` or else as the store reads it now. */
function readAt(
  store: ChainStore,
  sublevel: ChainStore['blocks'] | ChainStore['headers'],
  h: number,
  view?: DatabaseSnapshot,
): Promise<Uint8Array | undefined> {
  return view === undefined
    ? store.read(sublevel, heightKey(h))
    : sublevel.get(heightKey(h), { snapshot: view });
}

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
      for (let h = 0; h < height; h++) yield await signedHeaderAt(store, core, h);
    },
    block: () => blockAt(store, height),
    records: () => stateRecordBatches(store, BATCH),
  };
}
