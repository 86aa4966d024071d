import type { Hashes, Secp256k1Backend } from '@chain/crypto';
import { fastestSecp256k1, nativeHashes } from '@chain/crypto/native';
import {
  blockSigningHash,
  computeBlockHash,
  decodeBlock,
  encodeBlock,
  encodeBlockHeader,
  operationsRoot,
} from '../../block/block';
import { type Genesis, genesisHash } from '../../genesis';
import { decodeOperation } from '../../operation/operation';
import type { OperationRegistry } from '../../operation/registry';
import { decodeHead, encodeHead, opLocation } from '../chain-records';
import { type AccountResolver, indexBlock, keysOfOperation } from '../history/history-index';
import { OperationTally } from '../state/operation-tally';
import { ChainStore, heightKey, META_HEAD, operationIndexKey } from './store';

/** What appendUnexecutedBlocks wrote. */
export interface AppendedBlocks {
  /** The new head's height. */
  height: number;
  /** Operations in the appended blocks. */
  operations: number;
}

/** Blocks written per LevelDB batch: a few MB, not one batch for the whole fixture. */
const BLOCKS_PER_WRITE = 8;

/**
 * For benchmark fixtures that need a long history fast (the history index's reads on a chain of
 * 10M operations, which real production would take hours to make here): blocks of encoded
 * operations appended to a closed data directory's chain WITHOUT executing them. Each block is
 * signed by `producerKey`, linked to the one before and written as a commit writes it (the block,
 * its hash, its operations in the ops index and, through `resolve`, in the history index); the
 * head record, the operation count and the producer of the head move to the last. The state is
 * left as it was: every appended block carries the head's state root, and its operations'
 * signatures, n_operations and balances are not checked. A follower replaying the blocks would
 * refuse them: such a directory is a fixture for reads, not a chain to sync from.
 */
export async function appendUnexecutedBlocks(
  dataDir: string,
  options: {
    genesis: Genesis;
    registry: OperationRegistry;
    producerKey: Uint8Array;
    /** Each block's operations, encoded (signed or not). */
    blocks: Iterable<readonly Uint8Array[]>;
    /** An address's account number (the accounts must exist in the state). */
    resolve: AccountResolver;
    hashes?: Hashes;
    secp?: Secp256k1Backend;
  },
): Promise<AppendedBlocks> {
  const hashes = options.hashes ?? nativeHashes;
  const secp = options.secp ?? fastestSecp256k1();
  const chainHash = genesisHash(options.genesis);
  const store = await ChainStore.open(dataDir);
  try {
    let head = decodeHead((await store.read(store.meta, META_HEAD))!);
    const template = decodeBlock((await store.read(store.blocks, heightKey(head.height)))!, hashes);
    const tally = new OperationTally();
    await tally.load(store);
    let operations = 0;
    let batch = store.batch();
    let pending = 0;
    for (const encoded of options.blocks) {
      const height = head.height + 1;
      const ops = encoded.map((bytes) => decodeOperation(bytes, options.registry, hashes, true));
      const headerBytes = encodeBlockHeader({
        ...template.header,
        height,
        prevHash: head.hash,
        timestamp: head.timestamp + 1,
        opsRoot: operationsRoot(
          ops.map((op) => op.digest),
          hashes,
        ),
        stateRoot: head.stateRoot,
        payload: new Uint8Array(0),
        producers: [],
      });
      const signature = secp.sign(
        blockSigningHash(chainHash, headerBytes, hashes),
        options.producerKey,
      );
      const hash = computeBlockHash(headerBytes, signature, hashes);
      batch.put(heightKey(height), encodeBlock(headerBytes, signature, encoded), {
        sublevel: store.blocks,
      });
      batch.put(hash, heightKey(height), { sublevel: store.hashes });
      ops.forEach((op, i) => {
        batch.putPrefixed(
          operationIndexKey(store.opIndex, op.signer, op.nOperation, op.digestHex),
          opLocation(height, i),
        );
      });
      indexBlock(
        batch,
        store,
        ops.map((op) => keysOfOperation(options.registry, hashes, op, options.resolve)),
        height,
      );
      head = { ...head, height, hash, timestamp: head.timestamp + 1 };
      operations += ops.length;
      tally.add(ops.length, batch, store);
      batch.put(META_HEAD, encodeHead(head), { sublevel: store.meta });
      if (++pending === BLOCKS_PER_WRITE) {
        await store.commit(batch, false);
        batch = store.batch();
        pending = 0;
      }
    }
    await store.commit(batch, true);
    return { height: head.height, operations };
  } finally {
    await store.close();
  }
}
