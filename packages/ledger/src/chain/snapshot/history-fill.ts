import { equalBytes } from '@chain/crypto';
import { decodeBlock, decodeSignedHeader, encodeBlock, operationsRoot } from '../../block/block';
import { decodeOperation } from '../../operation/operation';
import type { ChainCore } from '../chain-core';
import { invalidBlock, opLocation } from '../chain-records';
import { indexBlock, keysOfOperation } from '../history/history-index';
import {
  heightKey,
  META_HISTORY_START,
  META_INDEX_FROM,
  operationIndexKey,
} from '../storage/store';

/**
 * The history below a snapshot, filled in afterwards (a node that joined from a snapshot fetches it
 * from its peers in the background): each block is checked against the header this node already
 * holds for its height (the header chain was checked from block 0 when the snapshot was taken),
 * and its operations against the header's operations root. The blocks are stored, not applied:
 * the state is past them.
 */
export type HistoryCore = Pick<
  ChainCore,
  'hashes' | 'historyFrom' | 'indexFrom' | 'registry' | 'requireStore' | 'tasks'
>;

/**
 * Stores `blocks`, the blocks right below the history start in ascending order (the last one at
 * historyStart - 1); returns the new history start (0 once the history is whole). INVALID_BLOCK
 * when one is not this chain's block.
 */
export function fillHistory(core: HistoryCore, blocks: readonly Uint8Array[]): Promise<number> {
  return core.tasks.run(async () => {
    const store = core.requireStore();
    const first = core.historyFrom - blocks.length;
    if (blocks.length === 0 || first < 1) {
      throw invalidBlock(
        'NOT_NEXT_BLOCK',
        `${blocks.length} blocks do not end right below block ${core.historyFrom}`,
      );
    }
    const batch = store.batch();
    // The index grows down with the history when it was whole from the history start.
    const indexing = core.indexFrom <= core.historyFrom;
    const resolve = (hash: Uint8Array) => store.readNumber(hash);
    for (let i = 0; i < blocks.length; i++) {
      const height = first + i;
      const held = await store.read(store.headers, heightKey(height));
      if (held === undefined) throw new Error(`the header of block ${height} is missing`);
      const expected = decodeSignedHeader(held, core.hashes);
      const block = decodeBlock(blocks[i]!, core.hashes);
      if (block.header.height !== height) {
        throw invalidBlock(
          'NOT_NEXT_BLOCK',
          `block ${block.header.height} given where block ${height} goes: ${blocks.length} blocks do not end right below block ${core.historyFrom}`,
        );
      }
      if (!equalBytes(block.hash, expected.hash)) {
        throw invalidBlock('WRONG_PARENT', `block ${height} is not the one of this chain's header`);
      }
      const ops = block.operations.map((bytes, index) => {
        try {
          return decodeOperation(bytes, core.registry, core.hashes, true);
        } catch (error) {
          throw invalidBlock('BAD_OPERATION', `block ${height}, operation ${index}`, error);
        }
      });
      const root = operationsRoot(
        ops.map((op) => op.digest),
        core.hashes,
      );
      if (!equalBytes(root, block.header.opsRoot)) {
        throw invalidBlock(
          'BAD_OPERATIONS_ROOT',
          `block ${height}: the operations root does not match`,
        );
      }
      batch.put(heightKey(height), block.bytes, { sublevel: store.blocks });
      for (let index = 0; index < ops.length; index++) {
        const op = ops[index]!;
        batch.putPrefixed(
          operationIndexKey(store.opIndex, op.signer, op.nOperation, op.digestHex),
          opLocation(height, index),
        );
      }
      batch.del(heightKey(height), { sublevel: store.headers });
      if (indexing) {
        const keys = ops.map((op) => keysOfOperation(core.registry, core.hashes, op, resolve));
        indexBlock(batch, store, keys, height);
      }
    }
    let start = first;
    if (first === 1) {
      // Block 0 has no operations: its header is the whole of it.
      const header0 = await store.read(store.headers, heightKey(0));
      if (header0 !== undefined) {
        const signed = decodeSignedHeader(header0, core.hashes);
        batch.put(heightKey(0), encodeBlock(signed.headerBytes, signed.signature, []), {
          sublevel: store.blocks,
        });
        batch.del(heightKey(0), { sublevel: store.headers });
      }
      start = 0;
    }
    if (start === 0) batch.del(META_HISTORY_START, { sublevel: store.meta });
    else batch.put(META_HISTORY_START, u32le(start), { sublevel: store.meta });
    if (indexing) batch.put(META_INDEX_FROM, u32le(start), { sublevel: store.meta });
    await store.commit(batch);
    core.historyFrom = start;
    if (indexing) core.indexFrom = start;
    return start;
  });
}

function u32le(value: number): Uint8Array {
  const out = new Uint8Array(4);
  new DataView(out.buffer).setUint32(0, value, true);
  return out;
}
