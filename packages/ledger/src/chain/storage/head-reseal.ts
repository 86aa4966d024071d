import { type Hashes, LtHash, type Secp256k1Backend } from '@chain/crypto';
import { fastestSecp256k1, nativeHashes } from '@chain/crypto/native';
import {
  blockSigningHash,
  computeBlockHash,
  decodeBlock,
  encodeBlock,
  encodeBlockHeader,
} from '../../block/block';
import { type Genesis, genesisHash } from '../../genesis';
import { stateRootOf, VectorSum } from '../../state/state-lattice';
import { decodeHead, encodeHead } from '../chain-records';
import { entriesOfRecords, stateRecordBatches } from './state-records';
import { ChainStore, heightKey, META_HEAD } from './store';

/**
 * For tools that write state straight into a closed data directory (the benchmark fixtures: state
 * in no block): the head block is rewritten to commit to the state the directory now holds, its
 * state root that of a full scan and its signature made again with `producerKey` (the head
 * block's producer's), with the head record and the hash index to match. A follower replaying the
 * blocks would refuse that block: such a directory is a fixture, not a chain to sync from.
 */
export async function resealHead(
  dataDir: string,
  genesis: Genesis,
  producerKey: Uint8Array,
  crypto: { hashes?: Hashes; secp?: Secp256k1Backend } = {},
): Promise<void> {
  const hashes = crypto.hashes ?? nativeHashes;
  const secp = crypto.secp ?? fastestSecp256k1();
  const store = await ChainStore.open(dataDir);
  try {
    const sum = new VectorSum(LtHash.identity(), hashes);
    for await (const records of stateRecordBatches(store, 4096)) {
      for (const entry of entriesOfRecords(records)) sum.add(entry);
    }
    const vector = sum.flush();
    const head = decodeHead((await store.read(store.meta, META_HEAD))!);
    const block = decodeBlock((await store.read(store.blocks, heightKey(head.height)))!, hashes);
    const stateRoot = stateRootOf(vector, hashes);
    const headerBytes = encodeBlockHeader({ ...block.header, stateRoot });
    const signature = secp.sign(
      blockSigningHash(genesisHash(genesis), headerBytes, hashes),
      producerKey,
    );
    const hash = computeBlockHash(headerBytes, signature, hashes);
    const batch = store.batch();
    batch.put(heightKey(head.height), encodeBlock(headerBytes, signature, block.operations), {
      sublevel: store.blocks,
    });
    batch.del(block.hash, { sublevel: store.hashes });
    batch.put(hash, heightKey(head.height), { sublevel: store.hashes });
    batch.put(META_HEAD, encodeHead({ ...head, hash, stateRoot, stateVector: vector }), {
      sublevel: store.meta,
    });
    await store.commit(batch);
  } finally {
    await store.close();
  }
}
