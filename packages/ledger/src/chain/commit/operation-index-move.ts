import { META_OPERATION_COUNT } from '../state/operation-tally';
import {
  type ChainStore,
  META_STATE_FORMAT,
  operationKeyOfIdentity,
  STATE_FORMAT_OPERATIONS_BY_SIGNER,
} from '../storage/store';

/** Operations moved per batch: a batch's write stays a few MB. */
const MOVE_BATCH = 20_000;

/**
 * Moves the operation index of a data directory of layout STATE_FORMAT_LATTICE (`legacyOps`, keyed
 * by the ophash identity's text) into `opIndex` (signer order, operationKey), then marks the data
 * directory STATE_FORMAT_OPERATIONS_BY_SIGNER. Once per data directory, at open, before anything
 * reads the index; about 10 s a million operations.
 *
 * Each batch puts its operations under their new keys and deletes the old ones together, so a
 * crash midway leaves every operation in exactly one of the two sublevels, and the next open goes
 * on with what is left (the layout mark is written only once `legacyOps` is empty). An older
 * chain-node refuses the data directory after it (DATADIR_TOO_NEW).
 *
 * `onProgress(moved, total)`: before the first batch (moved 0), after each, and at the end (moved
 * = total); `total` is the data directory's operation count when it keeps one (else undefined).
 */
export async function moveOperationIndex(
  store: ChainStore,
  onProgress?: (moved: number, total: number | undefined) => void,
): Promise<void> {
  const total = await storedOperationCount(store);
  let moved = 0;
  onProgress?.(moved, total);
  const iterator = store.legacyOps.iterator();
  try {
    for (;;) {
      const entries = await iterator.nextv(MOVE_BATCH);
      if (entries.length === 0) break;
      const batch = store.batch();
      for (const [identity, location] of entries) {
        batch.put(operationKeyOfIdentity(identity), location, { sublevel: store.opIndex });
        batch.del(identity, { sublevel: store.legacyOps });
      }
      await store.commit(batch, false);
      moved += entries.length;
      onProgress?.(moved, total);
    }
  } finally {
    await iterator.close();
  }
  const mark = store.batch();
  mark.put(META_STATE_FORMAT, Uint8Array.of(STATE_FORMAT_OPERATIONS_BY_SIGNER), {
    sublevel: store.meta,
  });
  await store.commit(mark, true);
  onProgress?.(moved, moved);
}

async function storedOperationCount(store: ChainStore): Promise<number | undefined> {
  const stored = await store.read(store.meta, META_OPERATION_COUNT);
  if (stored === undefined || stored.byteLength !== 8) return undefined;
  return Number(new DataView(stored.buffer, stored.byteOffset, 8).getBigUint64(0, true));
}
